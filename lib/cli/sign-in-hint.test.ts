import { describe, expect, it } from "vitest";
import { signInHint } from "./sign-in-hint";

/** npm start's sign-in line: a generated password only where a person reads it. */
const generated = { kind: "generated" as const, userId: "u1", email: "admin@localhost", password: "pw-9vQ-generated-secret", file: "/srv/data/initial-admin.txt" };

describe("signInHint", () => {
  it("prints a generated password once at a terminal, with where it is saved", () => {
    const line = signInHint(generated, { showPassword: true });
    expect(line).toContain("Sign in as admin@localhost with password pw-9vQ-generated-secret");
    expect(line).toContain("also saved to /srv/data/initial-admin.txt");
  });

  it("names only the file that holds it when the banner goes to a captured stream, and by default", () => {
    for (const line of [signInHint(generated, { showPassword: false }), signInHint(generated)]) {
      expect(line).toBe("  Sign in as admin@localhost with the password saved in /srv/data/initial-admin.txt (readable only by you — change it after signing in)");
      expect(line).not.toContain(generated.password);
    }
  });

  it("never prints a configured password", () => {
    expect(signInHint({ kind: "configured", userId: "u1", email: "ops@example.com" }, { showPassword: true })).toBe("  Sign in as ops@example.com with ADMIN_PASSWORD.");
  });
});
