import { describe, expect, it } from "vitest";
import { createSettler } from "@/lib/credits/settle";
import type { Db } from "@/lib/db/client";
import { keyAccount } from "@/lib/usage/account";
import { burnRateForecast } from "@/lib/usage/forecast";
import { createUser, getUser, setCreditAllowance, type Role } from "@/lib/users/repository";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { issueKey, updateVisibleKeyPolicy, type Principal } from "./manage";
import { refillDueKeys, type KeyRefill } from "./refill";
import { createKey, getKey } from "./repository";
import { keyView } from "./view";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";

/**
 * Automatic refills (lib/keys/refill.sql) with the clock given: refill_keys(at) is what the
 * sweeper runs with the database's now(); here `at` walks over month ends and leap days.
 */
describe.each(await testDatabases())("automatic refills on $name", (database) => {
  const db = openForSuite(database);

  const issue = async (refill: KeyRefill, credits: number, lastPeriod: string) => {
    const { key } = await createKey(db(), SECRET, { name: `refill-${refill.interval}`, ownerId: null, credits, qpsLimit: 5, expiresAt: null, refill });
    // As if the key had last been refilled for this period.
    await db().query("UPDATE api_keys SET refilled_period = $2::date WHERE id = $1", [key.id, lastPeriod]);
    return key.id;
  };
  const creditsOf = async (keyId: string) =>
    (await db().query<{ c: number; g: number }>("SELECT credits_remaining::int AS c, credits_granted::int AS g FROM api_keys WHERE id = $1", [keyId]))[0];
  const refillsOf = async (keyId: string) =>
    db().query<{ details: { period: string; creditsBefore: number; creditsAfter: number } }>(
      "SELECT details FROM audit_log WHERE action = 'key.refill' AND target_id = $1 ORDER BY id",
      [keyId],
    );
  const refillAt = async (at: string, keyId: string) => (await refillDueKeys(db(), new Date(at))).filter((row) => row.keyId === keyId);

  it("finds each period's start over month ends and leap days", async () => {
    const start = async (interval: string, day: number | null, at: string) =>
      (await db().query<{ d: string }>("SELECT refill_period_start($1, $2::integer, $3::timestamptz)::text AS d", [interval, day, at]))[0]?.d;
    const next = async (interval: string, day: number | null, at: string) =>
      (await db().query<{ d: string }>("SELECT to_char(next_refill_at($1, $2::integer, $3::timestamptz) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS d", [interval, day, at]))[0]?.d;
    expect(await start("daily", null, "2028-02-29T23:59:59.999Z")).toBe("2028-02-29");
    expect(await next("daily", null, "2028-02-29T23:59:59.999Z")).toBe("2028-03-01 00:00");
    expect(await start("monthly", null, "2027-01-01T00:00:00Z")).toBe("2027-01-01");
    expect(await start("monthly", null, "2026-12-31T23:59:59Z")).toBe("2026-12-01");
    expect(await next("monthly", null, "2026-12-31T23:59:59Z")).toBe("2027-01-01 00:00");
    // The 31st: the last day of shorter months, 29 February in a leap year, 28 otherwise.
    expect(await start("monthly", 31, "2028-02-28T23:59:59Z")).toBe("2028-01-31");
    expect(await start("monthly", 31, "2028-02-29T00:00:00Z")).toBe("2028-02-29");
    expect(await next("monthly", 31, "2028-02-29T00:00:00Z")).toBe("2028-03-31 00:00");
    expect(await start("monthly", 31, "2027-02-28T00:00:00Z")).toBe("2027-02-28");
    expect(await start("monthly", 30, "2028-03-29T12:00:00Z")).toBe("2028-02-29");
    expect(await next("monthly", 15, "2026-12-20T00:00:00Z")).toBe("2027-01-15 00:00");
  });

  it("tops a monthly key up on the 31st, the last day of February in a leap year, exactly once per period", async () => {
    const keyId = await issue({ credits: 1000, interval: "monthly", dayOfMonth: 31, mode: "top_up_to" }, 200, "2028-01-31");
    expect(await refillAt("2028-02-28T23:59:59Z", keyId)).toEqual([]);
    expect(await refillAt("2028-02-29T00:00:00Z", keyId)).toEqual([{ keyId, period: "2028-02-29", creditsAdded: 800, creditsRemaining: 1000 }]);
    expect(await refillAt("2028-02-29T00:00:30Z", keyId)).toEqual([]);
    expect(await refillAt("2028-03-30T23:59:59Z", keyId)).toEqual([]);
    expect(await creditsOf(keyId)).toEqual({ c: 1000, g: 1000 });
    // Still above the amount: topping up to it adds nothing, but the period counts as refilled.
    expect(await refillAt("2028-03-31T00:00:00Z", keyId)).toEqual([{ keyId, period: "2028-03-31", creditsAdded: 0, creditsRemaining: 1000 }]);
    const audit = await refillsOf(keyId);
    expect(audit.map((row) => [row.details.period, row.details.creditsBefore, row.details.creditsAfter])).toEqual([
      ["2028-02-29", 200, 1000],
      ["2028-03-31", 1000, 1000],
    ]);
  });

  it("increases a daily key by its amount at each UTC midnight, over a year end", async () => {
    const keyId = await issue({ credits: 50, interval: "daily", dayOfMonth: null, mode: "increase_by" }, 10, "2026-12-30");
    expect(await refillAt("2026-12-30T23:59:59Z", keyId)).toEqual([]);
    expect(await refillAt("2026-12-31T00:00:00Z", keyId)).toHaveLength(1);
    expect(await refillAt("2026-12-31T23:00:00Z", keyId)).toEqual([]);
    expect(await refillAt("2027-01-01T00:00:01Z", keyId)).toEqual([{ keyId, period: "2027-01-01", creditsAdded: 50, creditsRemaining: 110 }]);
    expect(await creditsOf(keyId)).toEqual({ c: 110, g: 110 });
    // A refill is no request: no usage row.
    expect(await db().query("SELECT 1 FROM usage_events WHERE key_id = $1", [keyId])).toEqual([]);
  });

  it("refills no revoked key, and a key without a refill never", async () => {
    const revoked = await issue({ credits: 50, interval: "daily", dayOfMonth: null, mode: "increase_by" }, 10, "2026-01-01");
    await db().query("UPDATE api_keys SET status = 'revoked' WHERE id = $1", [revoked]);
    const { key: plain } = await createKey(db(), SECRET, { name: "plain", ownerId: null, credits: 5, qpsLimit: 5, expiresAt: null });
    const refilled = await refillDueKeys(db(), new Date("2030-01-01T00:00:00Z"));
    expect(refilled.map((row) => row.keyId)).not.toContain(revoked);
    expect(refilled.map((row) => row.keyId)).not.toContain(plain.id);
  });

  it("shows the refill and the next one in /v1/account's figures, and the forecast says whether it comes in time", async () => {
    const refill: KeyRefill = { credits: 500, interval: "daily", dayOfMonth: null, mode: "top_up_to" };
    const { key: slow } = await createKey(db(), SECRET, { name: "slow", ownerId: null, credits: 100, qpsLimit: 5, expiresAt: null, refill });
    const { key: fast } = await createKey(db(), SECRET, { name: "fast", ownerId: null, credits: 100, qpsLimit: 5, expiresAt: null, refill });
    const tomorrow = new Date(`${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(await keyAccount(db(), slow.id)).toMatchObject({ refill: { credits: 500, interval: "daily", dayOfMonth: null, mode: "top_up_to" }, nextRefillAt: tomorrow.toISOString() });
    const settler = createSettler(async () => db());
    const charge = (keyId: string, costCredits: number) =>
      settler.settle({ requestId: crypto.randomUUID(), keyId, operation: "followers", costCredits, outcome: "found", paramsSummary: "", startedAt: Date.now(), startedPerf: performance.now() });
    // At 99 credits a day, 1 credit left runs out in about a quarter of an hour; at 1 a day, 99 last 99 days.
    await charge(fast.id, 99);
    await charge(slow.id, 1);
    const forecast = await burnRateForecast(db(), { kind: "keys", keyIds: [slow.id, fast.id] }, new Date(tomorrow.getTime() - 3_600_000));
    const byId = new Map(forecast.keys.map((entry) => [entry.keyId, entry]));
    expect(byId.get(fast.id)).toMatchObject({ nextRefillAt: tomorrow.toISOString(), runsOutBeforeRefill: true });
    expect(byId.get(slow.id)).toMatchObject({ nextRefillAt: tomorrow.toISOString(), runsOutBeforeRefill: false });
  });

  it.runIf(database.name === "postgres")("refills once when three instances sweep the same period at the same moment", async () => {
    const instances: Db[] = [await database.open(), await database.open(), await database.open()];
    try {
      const keyIds = await Promise.all(
        Array.from({ length: 20 }, () => issue({ credits: 7, interval: "daily", dayOfMonth: null, mode: "increase_by" }, 0, "2029-06-30")),
      );
      for (const at of ["2029-07-01T00:00:00Z", "2029-07-01T00:00:00.001Z", "2029-07-02T00:00:00Z"]) {
        const rounds = await Promise.all(
          instances.flatMap((instance) => [refillDueKeys(instance, new Date(at)), refillDueKeys(instance, new Date(at))]),
        );
        for (const keyId of keyIds) {
          const sameDay = at.startsWith("2029-07-01T00:00:00.001") ? 0 : 1;
          expect(rounds.flat().filter((row) => row.keyId === keyId)).toHaveLength(sameDay);
        }
      }
      for (const keyId of keyIds) {
        expect(await creditsOf(keyId)).toEqual({ c: 14, g: 14 });
        expect(await refillsOf(keyId)).toHaveLength(2);
      }
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  describe("who pays", () => {
    let userCount = 0;
    const principal = async (role: Role, creditAllowance: number): Promise<Principal> => {
      userCount += 1;
      const user = await createUser(db(), { email: `payer-${userCount}@example.com`, name: "p", role, passwordHash: null, creditAllowance });
      return { id: user.id, email: user.email, role, ip: "127.0.0.1" };
    };
    const allowanceOf = async (who: Principal) => (await getUser(db(), who.id))?.creditAllowance;
    /** A key issued in the console by `who`, as if last refilled for `lastPeriod`. */
    const issuedBy = async (who: Principal, credits: number, refill: KeyRefill, lastPeriod: string) => {
      const { key } = await issueKey(db(), SECRET, who, { name: "paid", credits, qpsLimit: 5, expiresAt: null, useForConsole: false, refill });
      await db().query("UPDATE api_keys SET refilled_period = $2::date WHERE id = $1", [key.id, lastPeriod]);
      return key.id;
    };
    const stopsOf = async (keyId: string) =>
      db().query<{ details: { period: string; creditsOwed: number; payerId: string } }>(
        "SELECT details FROM audit_log WHERE action = 'key.refill_stopped' AND target_id = $1 ORDER BY id",
        [keyId],
      );
    const daily = (credits: number, mode: KeyRefill["mode"] = "increase_by"): KeyRefill => ({ credits, interval: "daily", dayOfMonth: null, mode });

    it("takes what an analyst's refill adds from their allowance, each period, in both modes", async () => {
      const analyst = await principal("analyst", 1000);
      const adds = await issuedBy(analyst, 100, daily(300), "2031-01-01");
      const tops = await issuedBy(analyst, 50, daily(200, "top_up_to"), "2031-01-01");
      expect(await allowanceOf(analyst)).toBe(850);
      expect((await getKey(db(), adds))?.refillPayerId).toBe(analyst.id);
      expect(await refillAt("2031-01-02T00:00:00Z", adds)).toEqual([{ keyId: adds, period: "2031-01-02", creditsAdded: 300, creditsRemaining: 400 }]);
      // top_up_to adds, and so takes, only what lifts the balance to the amount: 200 − 50.
      expect(await creditsOf(tops)).toEqual({ c: 200, g: 200 });
      expect(await allowanceOf(analyst)).toBe(850 - 300 - 150);
      // Next day: 300 more for one, nothing for the other (still at its amount), nothing taken for it.
      await refillDueKeys(db(), new Date("2031-01-03T00:00:00Z"));
      expect(await creditsOf(adds)).toEqual({ c: 700, g: 700 });
      expect(await allowanceOf(analyst)).toBe(100);
      const [audit] = await refillsOf(adds);
      expect(audit?.details).toMatchObject({ creditsBefore: 100, creditsAfter: 400, payerId: analyst.id });
    });

    it("pays two keys of one payer one after the other: the one the allowance cannot pay stops, with an audit entry", async () => {
      const analyst = await principal("analyst", 500);
      const first = await issuedBy(analyst, 0, daily(300), "2031-02-01");
      const second = await issuedBy(analyst, 0, daily(300), "2031-02-01");
      const [paid, unpaid] = [first, second].sort();
      if (paid === undefined || unpaid === undefined) throw new Error("two keys");
      const refilled = (await refillDueKeys(db(), new Date("2031-02-02T00:00:00Z"))).filter((row) => row.keyId === first || row.keyId === second);
      expect(refilled).toEqual([{ keyId: paid, period: "2031-02-02", creditsAdded: 300, creditsRemaining: 300 }]);
      expect(await allowanceOf(analyst)).toBe(200);
      expect(await creditsOf(unpaid)).toEqual({ c: 0, g: 0 });
      const stopped = await getKey(db(), unpaid);
      expect(stopped?.refillStopped).toEqual({ at: new Date("2031-02-02T00:00:00Z"), credits: 300 });
      expect(stopped?.nextRefillAt).toBeNull();
      expect((await stopsOf(unpaid)).map((row) => row.details)).toEqual([
        expect.objectContaining({ period: "2031-02-02", creditsOwed: 300, payerId: analyst.id }),
      ]);
      // No next refill anywhere it is shown: /v1/account's figures and the forecast say none.
      expect((await keyAccount(db(), unpaid))?.nextRefillAt).toBeNull();
      const forecast = await burnRateForecast(db(), { kind: "keys", keyIds: [unpaid] }, new Date("2031-02-02T12:00:00Z"));
      expect(forecast.keys[0]?.nextRefillAt).toBeNull();
      expect(stopped && (await keyView(db(), analyst.id, stopped))).toMatchObject({
        refillPayerId: analyst.id,
        refillStopped: { at: "2031-02-02T00:00:00.000Z", credits: 300 },
        nextRefillAt: null,
      });
      // A stopped refill stays stopped; the other stops the next day, when 200 cannot pay 300.
      await refillDueKeys(db(), new Date("2031-02-03T00:00:00Z"));
      expect(await stopsOf(unpaid)).toHaveLength(1);
      expect((await getKey(db(), paid))?.refillStopped).toEqual({ at: new Date("2031-02-03T00:00:00Z"), credits: 300 });
      expect(await creditsOf(paid)).toEqual({ c: 300, g: 300 });
      expect(await allowanceOf(analyst)).toBe(200);
    });

    it("is re-armed by setting the refill again, checked against the allowance; a change that leaves the refill out keeps it stopped", async () => {
      const analyst = await principal("analyst", 100);
      const keyId = await issuedBy(analyst, 0, daily(100), "2031-03-01");
      await setCreditAllowance(db(), analyst.id, 50);
      await refillDueKeys(db(), new Date("2031-03-02T00:00:00Z"));
      expect((await getKey(db(), keyId))?.refillStopped).toEqual({ at: new Date("2031-03-02T00:00:00Z"), credits: 100 });
      expect((await updateVisibleKeyPolicy(db(), analyst, keyId, { operations: ["followers"] }))?.refillStopped).not.toBeNull();
      await expect(updateVisibleKeyPolicy(db(), analyst, keyId, { refill: daily(100) })).rejects.toThrow(
        "Not enough credit allowance for a refill of 100 credits a day: your allowance holds 50. Ask an administrator for more.",
      );
      await setCreditAllowance(db(), analyst.id, 250);
      const rearmed = await updateVisibleKeyPolicy(db(), analyst, keyId, { refill: daily(100) });
      expect(rearmed).toMatchObject({ refillStopped: null, refillPayerId: analyst.id });
      // The same schedule keeps its count: the period the stop missed is refilled at the next sweep, and paid.
      expect(await refillAt("2031-03-02T00:01:00Z", keyId)).toEqual([{ keyId, period: "2031-03-02", creditsAdded: 100, creditsRemaining: 100 }]);
      expect(await allowanceOf(analyst)).toBe(150);
    });

    it("never takes from any allowance for a refill an administrator set, on their key or an analyst's", async () => {
      const admin = await principal("admin", 0);
      const analyst = await principal("analyst", 10);
      const granted = await issuedBy(admin, 0, daily(1_000_000_000), "2031-04-01");
      const analystKey = await issuedBy(analyst, 0, daily(10), "2031-04-01");
      const set = await updateVisibleKeyPolicy(db(), admin, analystKey, { refill: daily(5000) });
      expect(set?.refillPayerId).toBeNull();
      await refillDueKeys(db(), new Date("2031-04-02T00:00:00Z"));
      expect(await creditsOf(granted)).toEqual({ c: 1_000_000_000, g: 1_000_000_000 });
      expect(await creditsOf(analystKey)).toEqual({ c: 5000, g: 5000 });
      expect([await allowanceOf(admin), await allowanceOf(analyst)]).toEqual([0, 10]);
      // The analyst's own change of another field keeps the administrator's grant.
      expect((await updateVisibleKeyPolicy(db(), analyst, analystKey, { allowedAddresses: null }))?.refillPayerId).toBeNull();
    });

    it.runIf(database.name === "postgres")("takes exactly what it adds when three instances sweep one payer's keys at once", async () => {
      const instances: Db[] = [await database.open(), await database.open(), await database.open()];
      try {
        // 20 keys of 7 credits a day, an allowance for 10 of them.
        const analyst = await principal("analyst", 7 * 20);
        const keyIds = await Promise.all(Array.from({ length: 20 }, () => issuedBy(analyst, 0, daily(7), "2031-05-01")));
        await setCreditAllowance(db(), analyst.id, 7 * 10);
        const rounds = await Promise.all(instances.flatMap((instance) => [0, 1].map(() => refillDueKeys(instance, new Date("2031-05-02T00:00:00Z")))));
        const refilled = rounds.flat().filter((row) => keyIds.includes(row.keyId));
        expect(refilled).toHaveLength(10);
        expect(new Set(refilled.map((row) => row.keyId)).size).toBe(10);
        expect(await allowanceOf(analyst)).toBe(0);
        const stopped = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE id = ANY($1) AND refill_stopped_at IS NOT NULL", [keyIds]);
        expect(stopped[0]?.n).toBe(10);
        const stops = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'key.refill_stopped' AND target_id = ANY($1)", [keyIds]);
        expect(stops[0]?.n).toBe(10);
        const granted = await db().query<{ total: number }>("SELECT sum(credits_granted)::int AS total FROM api_keys WHERE id = ANY($1)", [keyIds]);
        expect(granted[0]?.total).toBe(70);
      } finally {
        await Promise.all(instances.map((instance) => instance.close()));
      }
    });
  });
});
