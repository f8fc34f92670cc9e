import { afterAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createKey, revokeKey } from "@/lib/keys/repository";
import { testDatabases } from "@/tests/support/databases";
import { createSettler, type Outcome, type SettleRequest } from "./settle";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";
const databases = await testDatabases();

const request = (keyId: string, outcome: Outcome, costCredits = 2): SettleRequest => ({
  requestId: crypto.randomUUID(),
  keyId,
  operation: "followers",
  costCredits,
  outcome,
  paramsSummary: "userid=1",
  startedAt: Date.now(),
  startedPerf: performance.now(),
});

describe.each(databases)("settling requests on $name", (database) => {
  let db: Db;
  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });

  const newKey = async (credits: number) => {
    db ??= await database.open();
    return (await createKey(db, SECRET, { name: "t", ownerId: null, credits, qpsLimit: 5, expiresAt: null })).key;
  };
  const usage = (keyId: string) =>
    db.query<{ status: number; credits_charged: number }>(
      "SELECT status, credits_charged FROM usage_events WHERE key_id = $1",
      [keyId],
    );
  const credits = async (keyId: string) =>
    Number((await db.query<{ c: number }>("SELECT credits_remaining AS c FROM api_keys WHERE id = $1", [keyId]))[0]?.c);

  it("charges the cost for a found record and records one usage row", async () => {
    const key = await newKey(10);
    const settler = createSettler(async () => db);
    const result = await settler.settle(request(key.id, "found", 4));
    expect(result).toEqual({ status: 200, creditsCharged: 4, creditsRemaining: 6 });
    expect(await usage(key.id)).toEqual([{ status: 200, credits_charged: 4 }]);
  });

  it("admits exactly as many of 50 concurrent requests as the credits pay for", async () => {
    const key = await newKey(40);
    const settler = createSettler(async () => db);
    const results = await Promise.all(Array.from({ length: 50 }, () => settler.settle(request(key.id, "found", 2))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(20);
    expect(results.filter((r) => r.status === 402)).toHaveLength(30);
    expect(await credits(key.id)).toBe(0);
    const rows = await usage(key.id);
    expect(rows).toHaveLength(50);
    expect(rows.reduce((sum, row) => sum + row.credits_charged, 0)).toBe(40);
  });

  it("answers 402 before 404: an unknown record costs nothing either way", async () => {
    const rich = await newKey(10);
    const poor = await newKey(1);
    const settler = createSettler(async () => db);
    expect((await settler.settle(request(rich.id, "not_found", 4))).status).toBe(404);
    expect((await settler.settle(request(poor.id, "not_found", 4))).status).toBe(402);
    expect(await credits(rich.id)).toBe(10);
    expect(await credits(poor.id)).toBe(1);
  });

  it("records 400, 429 and 500 outcomes without charging", async () => {
    const key = await newKey(5);
    const settler = createSettler(async () => db);
    for (const outcome of ["400", "429", "500"] as const) {
      expect(await settler.settle(request(key.id, outcome))).toEqual({
        status: Number(outcome),
        creditsCharged: 0,
        creditsRemaining: 5,
      });
    }
    expect((await usage(key.id)).map((row) => row.status).sort()).toEqual([400, 429, 500]);
  });

  it("never charges a revoked key, even when a stale cache let the request through", async () => {
    const key = await newKey(10);
    await revokeKey(db, key.id);
    const settler = createSettler(async () => db);
    expect((await settler.settle(request(key.id, "found", 4))).status).toBe(401);
    expect(await credits(key.id)).toBe(10);
    expect(await usage(key.id)).toEqual([]);
  });

  it("fails the whole batch, charging nothing, when the database fails", async () => {
    const key = await newKey(10);
    const settler = createSettler(async () => {
      throw new Error("database down");
    });
    await expect(settler.settle(request(key.id, "found", 4))).rejects.toThrow("database down");
    expect(await credits(key.id)).toBe(10);
  });
});
