import { describe, expect, it } from "vitest";
import { createSettler, type SettleRequest } from "@/lib/credits/settle";
import { createKey, topUpKey } from "@/lib/keys/repository";
import { refillDueKeys } from "@/lib/keys/refill";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { replaceThresholds, thresholdsOfKeys } from "./thresholds";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";

/** Several alert thresholds per key (lib/alerts/thresholds.sql): once per crossing, re-armed by a rise. */
describe.each(await testDatabases())("alert thresholds on $name", (database) => {
  const db = openForSuite(database);

  const charge = (keyId: string, costCredits: number): SettleRequest => ({
    requestId: crypto.randomUUID(),
    keyId,
    operation: "followers",
    costCredits,
    outcome: "found",
    paramsSummary: "",
    startedAt: Date.now(),
    startedPerf: performance.now(),
  });
  const alertsOf = async (keyId: string) =>
    (
      await db().query<{ kind: string; t: number | null; r: number }>(
        "SELECT kind, threshold_credits::int AS t, credits_remaining::int AS r FROM key_alerts WHERE key_id = $1 ORDER BY id",
        [keyId],
      )
    ).map((row) => [row.kind, row.t, row.r]);

  it("fires each threshold one request crosses once, not again below it, and again after a top-up", async () => {
    const { key } = await createKey(db(), SECRET, { name: "thresholds", ownerId: null, credits: 100, qpsLimit: 5, expiresAt: null });
    await replaceThresholds(db(), key.id, [{ credits: 50 }, { percent: 30 }, { credits: 10 }]);
    expect((await thresholdsOfKeys(db(), [key.id])).get(key.id)).toEqual([
      { credits: 50, thresholdCredits: 50, armed: true },
      { percent: 30, thresholdCredits: 30, armed: true },
      { credits: 10, thresholdCredits: 10, armed: true },
    ]);
    const settler = createSettler(async () => db());

    expect((await settler.settle(charge(key.id, 75))).status).toBe(200);
    expect(await alertsOf(key.id)).toEqual([
      ["threshold", 50, 25],
      ["threshold", 30, 25],
    ]);
    expect((await settler.settle(charge(key.id, 1))).status).toBe(200);
    expect(await alertsOf(key.id)).toHaveLength(2);

    await topUpKey(db(), key.id, 100);
    // 124 of 200 granted: 30 % is now 60 credits and the balance is above every threshold again.
    expect((await thresholdsOfKeys(db(), [key.id])).get(key.id)?.map((threshold) => threshold.armed)).toEqual([true, true, true]);
    await settler.settle(charge(key.id, 60));
    expect(await alertsOf(key.id)).toHaveLength(2);
    await settler.settle(charge(key.id, 60));
    expect((await alertsOf(key.id)).slice(2)).toEqual([
      ["threshold", 60, 4],
      ["threshold", 50, 4],
      ["threshold", 10, 4],
    ]);
  });

  it("is re-armed by a refill, and a threshold set below the balance waits for one", async () => {
    const { key } = await createKey(db(), SECRET, {
      name: "refilled",
      ownerId: null,
      credits: 20,
      qpsLimit: 5,
      expiresAt: null,
      refill: { credits: 100, interval: "daily", dayOfMonth: null, mode: "top_up_to" },
    });
    await replaceThresholds(db(), key.id, [{ credits: 40 }, { credits: 15 }]);
    expect((await thresholdsOfKeys(db(), [key.id])).get(key.id)?.map((threshold) => threshold.armed)).toEqual([false, true]);
    const settler = createSettler(async () => db());
    await settler.settle(charge(key.id, 10));
    expect(await alertsOf(key.id)).toEqual([["threshold", 15, 10]]);
    await refillDueKeys(db(), new Date(Date.now() + 86_400_000));
    await settler.settle(charge(key.id, 70));
    expect((await alertsOf(key.id)).slice(1)).toEqual([["threshold", 40, 30]]);
  });
});
