import { describe, expect, it } from "vitest";
import { accessRefusal, compileAccess, normaliseAddressEntry, normaliseAddressList } from "./access";

describe("address entries", () => {
  it("normalises addresses and ranges, IPv4-mapped IPv6 written as IPv4", () => {
    const ok = (raw: string) => normaliseAddressEntry(raw);
    expect(ok(" 203.0.113.7 ")).toEqual({ ok: true, entry: "203.0.113.7" });
    expect(ok("203.0.113.0/24")).toEqual({ ok: true, entry: "203.0.113.0/24" });
    expect(ok("2001:DB8:0:0::/32")).toEqual({ ok: true, entry: "2001:db8::/32" });
    expect(ok("::ffff:198.51.100.7")).toEqual({ ok: true, entry: "198.51.100.7" });
    expect(ok("::ffff:10.0.0.0/104")).toEqual({ ok: true, entry: "10.0.0.0/8" });
    expect(ok("0.0.0.0/0")).toEqual({ ok: true, entry: "0.0.0.0/0" });
  });

  it("refuses what is not an address or range, with a sentence saying why", () => {
    const message = (raw: string) => {
      const result = normaliseAddressEntry(raw);
      return result.ok ? null : result.message;
    };
    expect(message("10.0.0.1/24")).toBe('"10.0.0.1/24" has bits set beyond its /24 prefix: did you mean 10.0.0.0/24?');
    expect(message("10.0.0.0/33")).toBe('"10.0.0.0/33" has a bad prefix length: after "/" give 0 to 32.');
    expect(message("2001:db8::/129")).toBe('"2001:db8::/129" has a bad prefix length: after "/" give 0 to 128.');
    expect(message("10.0.0.0/")).toContain("bad prefix length");
    expect(message("10.1")).toContain("is not an IPv4 or IPv6 address");
    expect(message("0x0a.0.0.1")).toContain("is not an IPv4 or IPv6 address");
    expect(message("fe80::1%eth0")).toContain("is not an IPv4 or IPv6 address");
    expect(message("example.com")).toContain("is not an IPv4 or IPv6 address");
    expect(message("1.2.3.4/8/8")).toContain("is not an address or a CIDR range");
  });

  it("keeps a list's first problem, drops duplicates, and refuses an empty list", () => {
    expect(normaliseAddressList(["10.0.0.0/8", "::ffff:10.0.0.0/104"])).toEqual({ ok: true, entries: ["10.0.0.0/8"] });
    expect(normaliseAddressList([])).toMatchObject({ ok: false });
    expect(normaliseAddressList(["10.0.0.0/8", "nope", "10.0.0.1/24"])).toMatchObject({ ok: false, message: expect.stringContaining('"nope"') });
  });
});

describe("access checks", () => {
  const access = compileAccess(["followers"], ["203.0.113.0/24", "2001:db8::/32", "::ffff:0:0/96"]);

  it("allows the key's operations from its addresses, and calls every key may make", () => {
    expect(accessRefusal(access, "followers", "203.0.113.255")).toBeNull();
    expect(accessRefusal(access, null, "2001:db8::1")).toBeNull();
    expect(accessRefusal(compileAccess(null, null), "anything", "unknown")).toBeNull();
  });

  it("refuses another address first, then another operation", () => {
    expect(accessRefusal(access, "get_user_publications", "2001:db9::")).toBe("address_not_allowed");
    expect(accessRefusal(access, "get_user_publications", "2001:db8::")).toBe("operation_not_allowed");
    expect(accessRefusal(access, "followers", "unknown")).toBe("address_not_allowed");
  });

  it("matches IPv4 clients against IPv6 ranges in their mapped form, and mapped clients as IPv4", () => {
    const ipv4Only = compileAccess(null, ["198.51.100.0/31"]);
    expect(accessRefusal(ipv4Only, "x", "::ffff:198.51.100.1")).toBeNull();
    expect(accessRefusal(ipv4Only, "x", "::ffff:198.51.100.2")).toBe("address_not_allowed");
    // ::ffff:0:0/96 holds every IPv4 client.
    expect(accessRefusal(access, "followers", "192.0.2.1")).toBeNull();
  });

  it("skips the address check for a lookup the server makes on the key's behalf", () => {
    expect(accessRefusal(access, "followers", null)).toBeNull();
    expect(accessRefusal(access, "get_user_publications", null)).toBe("operation_not_allowed");
  });
});
