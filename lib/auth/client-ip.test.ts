import { describe, expect, it } from "vitest";
import { clientAddress } from "@/lib/front/client-address";
import { CLIENT_ADDRESS_HEADER, clientIp } from "./client-ip";

describe("client address", () => {
  it("is the socket peer when no proxy is trusted (the default), whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.66", 0)).toBe("203.0.113.9");
    expect(clientAddress("::ffff:127.0.0.1", "1.1.1.1, 2.2.2.2", 0)).toBe("127.0.0.1");
    expect(clientAddress("::1", undefined, 0)).toBe("::1");
  });

  it("takes the entry the nearest trusted proxy appended, never a client-written one", () => {
    expect(clientAddress("10.0.0.2", "198.51.100.66, 203.0.113.9", 1)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", "203.0.113.9", 1)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", " 1.1.1.1 ,, 10.0.0.3 ", 1)).toBe("10.0.0.3");
    expect(clientAddress("10.0.0.2", ["198.51.100.66", "203.0.113.9, 10.0.0.3"], 2)).toBe("203.0.113.9");
    // A request that came without the header (straight to the app) is the peer's.
    expect(clientAddress("10.0.0.2", undefined, 1)).toBe("10.0.0.2");
  });

  it("is read by the app only from the front's own header", () => {
    expect(clientIp(new Headers({ [CLIENT_ADDRESS_HEADER]: "203.0.113.9", "x-forwarded-for": "1.1.1.1" }))).toBe("203.0.113.9");
    expect(clientIp({ [CLIENT_ADDRESS_HEADER]: "::1" })).toBe("::1");
    expect(clientIp(new Headers({ "x-forwarded-for": "1.1.1.1", "x-real-ip": "2.2.2.2" }))).toBe("local");
    expect(clientIp(undefined)).toBe("local");
  });
});
