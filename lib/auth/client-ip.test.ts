import { describe, expect, it } from "vitest";
import { clientIp } from "./options";

describe("client address", () => {
  it("takes the entry the nearest proxy appended, never a client-written one", () => {
    expect(clientIp(new Headers({ "x-forwarded-for": "198.51.100.66, 203.0.113.9" }))).toBe("203.0.113.9");
    expect(clientIp(new Headers({ "x-forwarded-for": "203.0.113.9" }))).toBe("203.0.113.9");
    expect(clientIp({ "x-forwarded-for": " 1.1.1.1 ,, 10.0.0.2 " })).toBe("10.0.0.2");
    expect(clientIp(new Headers())).toBe("local");
  });
});
