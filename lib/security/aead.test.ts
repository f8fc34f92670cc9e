import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "./aead";

describe("sealed secrets (AES-256-GCM)", () => {
  const key = crypto.randomBytes(32);

  it("round-trips and never contains the plaintext", () => {
    const sealed = encryptSecret(key, "eyJ.secret.token", "console-token:key_1");
    expect(sealed).not.toContain("secret");
    expect(decryptSecret(key, sealed, "console-token:key_1")).toBe("eyJ.secret.token");
  });

  it("refuses another key, other associated data and tampering", () => {
    const sealed = encryptSecret(key, "value", "purpose");
    expect(() => decryptSecret(crypto.randomBytes(32), sealed, "purpose")).toThrow();
    expect(() => decryptSecret(key, sealed, "other-purpose")).toThrow();
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3] ?? "", "base64url");
    body[0] = (body[0] ?? 0) ^ 1;
    expect(() => decryptSecret(key, [parts[0], parts[1], parts[2], body.toString("base64url")].join("."), "purpose")).toThrow();
  });
});
