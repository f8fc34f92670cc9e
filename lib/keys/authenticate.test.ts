import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { pgliteDatabase } from "@/tests/support/databases";
import { createAuthenticator } from "./authenticate";
import { createKey, revokeKey, rollKey } from "./repository";
import { createTokenVerifier, hashToken } from "./tokens";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";
const database = pgliteDatabase();
let db: Db;

beforeAll(async () => {
  db = await database.open();
});
afterAll(async () => {
  await db.close();
  await database.cleanup();
});

const authenticator = () =>
  createAuthenticator({ db: async () => db, verify: createTokenVerifier(SECRET), ttlMs: 1000 });
const issue = (credits = 10) => createKey(db, SECRET, { name: "t", ownerId: null, credits, qpsLimit: 5, expiresAt: null });

describe("API key authentication", () => {
  it("stores only the token's hash", async () => {
    const { key, token } = await issue();
    const rows = await db.query<{ token_hash: Uint8Array; token_prefix: string }>(
      "SELECT token_hash, token_prefix FROM api_keys WHERE id = $1",
      [key.id],
    );
    expect(Buffer.from(rows[0]?.token_hash ?? []).equals(hashToken(token))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(token.split(".")).toHaveLength(3);
  });

  it("says apiKey is null without a bearer token", async () => {
    const auth = authenticator();
    for (const header of [null, "", "Basic abc", "Bearer", "Bearer "]) {
      expect(await auth.authenticate(header)).toEqual({ ok: false, reason: "key_missing" });
    }
  });

  it("accepts an issued token and refuses forged ones", async () => {
    const { key, token } = await issue();
    const auth = authenticator();
    expect(await auth.authenticate(`Bearer ${token}`)).toMatchObject({ ok: true, key: { id: key.id } });
    const foreign = await new SignJWT({ kid: key.id })
      .setProtectedHeader({ alg: "HS256" })
      .setJti("x".repeat(22))
      .sign(new TextEncoder().encode("another-secret-another-secret-0123456789"));
    const unsignedKid = await new SignJWT({ kid: key.id })
      .setProtectedHeader({ alg: "HS256" })
      .setJti("y".repeat(22))
      .sign(new TextEncoder().encode(SECRET));
    const lastChanged = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const bad of [foreign, unsignedKid, `${token}x`, "garbage", lastChanged]) {
      expect(await auth.authenticate(`Bearer ${bad}`)).toEqual({ ok: false, reason: "key_invalid" });
    }
  });

  it("refuses a revoked key on the next request once invalidated", async () => {
    const { key, token } = await issue();
    const auth = authenticator();
    expect((await auth.authenticate(`Bearer ${token}`)).ok).toBe(true);
    await revokeKey(db, key.id);
    auth.invalidate(key.id);
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({ ok: false, reason: "key_invalid" });
  });

  it("keeps the old token during a roll's grace period, and not without one", async () => {
    const { key, token: first } = await issue();
    const auth = authenticator();
    const rolled = await rollKey(db, SECRET, key.id, 3_600_000);
    auth.invalidate(key.id);
    expect((await auth.authenticate(`Bearer ${first}`)).ok).toBe(true);
    expect((await auth.authenticate(`Bearer ${rolled?.token}`)).ok).toBe(true);
    const again = await rollKey(db, SECRET, key.id, 0);
    auth.invalidate(key.id);
    expect((await auth.authenticate(`Bearer ${rolled?.token}`)).ok).toBe(false);
    expect((await auth.authenticate(`Bearer ${first}`)).ok).toBe(false);
    expect((await auth.authenticate(`Bearer ${again?.token}`)).ok).toBe(true);
  });

  it("refuses an expired key", async () => {
    const { key, token } = await createKey(db, SECRET, {
      name: "old",
      ownerId: null,
      credits: 1,
      qpsLimit: 5,
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(key.expiresAt).not.toBeNull();
    expect(await authenticator().authenticate(`Bearer ${token}`)).toEqual({ ok: false, reason: "key_invalid" });
  });
});
