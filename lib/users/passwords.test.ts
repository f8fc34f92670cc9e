import { describe, expect, it } from "vitest";
import { decoyHash, hashPassword, randomPassword, verifyPassword } from "./passwords";

describe("password hashing", () => {
  it("verifies the right password only, with a fresh salt each time", async () => {
    const first = await hashPassword("correct horse battery");
    const second = await hashPassword("correct horse battery");
    expect(first).not.toBe(second);
    expect(first.startsWith("scrypt$32768$8$1$")).toBe(true);
    expect(await verifyPassword("correct horse battery", first)).toBe(true);
    expect(await verifyPassword("correct horse batterY", first)).toBe(false);
    expect(await verifyPassword("anything", "not-a-hash")).toBe(false);
  });

  it("has a decoy nobody can match and random passwords of ≥ 128 bits", async () => {
    expect(await verifyPassword("", await decoyHash())).toBe(false);
    expect(randomPassword()).toHaveLength(24);
    expect(randomPassword()).not.toBe(randomPassword());
  });
});
