import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { newPooledKey, newTeam, newUser, poolOf } from "@/tests/support/usage";
import { replaceThresholds, thresholdsOfKeys } from "@/lib/alerts/thresholds";
import { refillDueKeys, refillDuePools, setPoolRefill } from "@/lib/keys/refill";
import { burnRateForecast } from "@/lib/usage/forecast";
import { createSettler, type Outcome, type SettleRequest } from "./settle";

/**
 * A team workspace's pool (docs/teams.md): its keys draw on one balance, each within its own cap
 * and its member's monthly budget, exactly, under concurrency, and set-based settlement decides a
 * pooled batch exactly as the in-order policy does.
 */
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

describe.each(await testDatabases())("a team's pool on $name", (database) => {
  const db = openForSuite(database);
  const user = async () => newUser(db(), `${crypto.randomUUID()}@example.test`);

  it("charges 300 parallel requests over 6 keys of one pool holding 100 credits exactly 100, never below 0", async () => {
    const owner = await user();
    const team = await newTeam(db(), owner.id, 100);
    const keys: { id: string }[] = [];
    for (let index = 0; index < 6; index += 1) keys.push(await newPooledKey(db(), team, owner.id));
    const settler = createSettler(async () => db());
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, index) => settler.settle(request(keys[index % 6]!.id, "found", index % 3 === 0 ? 1 : 2))),
    );
    const charged = results.reduce((sum, result) => sum + result.creditsCharged, 0);
    expect(charged).toBe(100);
    expect(await poolOf(db(), team)).toBe(0);
    expect(results.every((result) => result.status === 200 || result.status === 402)).toBe(true);
    expect(results.every((result) => result.creditsRemaining >= 0)).toBe(true);
    const [usage] = await db().query<{ credits: number }>(
      "SELECT COALESCE(sum(credits_charged), 0)::int AS credits FROM usage_events WHERE key_id = ANY($1::text[])",
      [keys.map((key) => key.id)],
    );
    expect(usage?.credits).toBe(100);
    // The keys' own balances are untouched: a pooled key has none.
    const own = await db().query<{ c: number }>("SELECT credits_remaining::int AS c FROM api_keys WHERE id = ANY($1::text[])", [
      keys.map((key) => key.id),
    ]);
    expect(own.map((row) => row.c)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("refuses over a key's own monthly or total cap and over a member's monthly budget, each with its reason", async () => {
    const owner = await user();
    const member = await user();
    const team = await newTeam(db(), owner.id, 1000, [{ userId: member.id, budget: 6 }]);
    const monthly = await newPooledKey(db(), team, owner.id, { credits: 4, period: "month" });
    const total = await newPooledKey(db(), team, owner.id, { credits: 2, period: "total" });
    const daily = await newPooledKey(db(), team, owner.id, { credits: 2, period: "day" });
    const budgeted = [await newPooledKey(db(), team, member.id), await newPooledKey(db(), team, member.id)];
    const settler = createSettler(async () => db());
    const statuses = async (keyId: string, count: number) => {
      const out: number[] = [];
      for (let index = 0; index < count; index += 1) out.push((await settler.settle(request(keyId, "found", 2))).status);
      return out;
    };
    expect(await statuses(monthly.id, 3)).toEqual([200, 200, 402]);
    expect(await statuses(total.id, 2)).toEqual([200, 402]);
    expect(await statuses(daily.id, 2)).toEqual([200, 402]);
    // The member's budget counts both their keys together.
    expect(await statuses(budgeted[0]!.id, 2)).toEqual([200, 200]);
    expect(await statuses(budgeted[1]!.id, 2)).toEqual([200, 402]);
    const reasons = await db().query<{ key_id: string; reason: string }>(
      "SELECT key_id, reason FROM usage_events WHERE key_id = ANY($1::text[]) AND status = 402",
      [[monthly.id, total.id, daily.id, budgeted[1]!.id]],
    );
    expect(Object.fromEntries(reasons.map((row) => [row.key_id, row.reason]))).toEqual({
      [monthly.id]: "cap",
      [total.id]: "cap",
      [daily.id]: "daily_cap",
      [budgeted[1]!.id]: "budget",
    });
    expect(await poolOf(db(), team)).toBe(1000 - 2 * (2 + 1 + 1 + 3));
  });

  it("gives refunds, swept reservations and voided charges back to the pool", async () => {
    const owner = await user();
    const team = await newTeam(db(), owner.id, 20);
    const key = await newPooledKey(db(), team, owner.id);
    const settler = createSettler(async () => db());
    const failed = request(key.id, "reserve", 4);
    expect(await settler.settle(failed)).toMatchObject({ status: 200, creditsRemaining: 16 });
    expect(await settler.settle({ ...failed, outcome: "refund", finalStatus: 500 })).toMatchObject({ status: 500, creditsRemaining: 20 });
    const orphan = request(key.id, "reserve", 4);
    await settler.settle(orphan);
    expect(await poolOf(db(), team)).toBe(16);
    await db().query("UPDATE usage_events SET created_at = now() - interval '10 minutes' WHERE request_id = $1", [orphan.requestId]);
    await db().query("SELECT sweep_stale_reservations(interval '2 minutes')");
    expect(await poolOf(db(), team)).toBe(20);
    const lost = request(key.id, "found", 4);
    await settler.settle(lost);
    expect(await poolOf(db(), team)).toBe(16);
    await db().query("SELECT void_settlements(ARRAY[$1::uuid])", [lost.requestId]);
    expect(await poolOf(db(), team)).toBe(20);
  });

  it("decides a pooled batch set-based exactly as the in-order policy does", async () => {
    type KeySpec = { cap: { credits: number; period: "day" | "month" | "total" } | null; member: 0 | 1; threshold: number | null };
    const scenario = fc.record({
      pool: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 200, max: 600 })),
      budget: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
      keys: fc.array(
        fc.record({
          cap: fc.option(
            fc.record({ credits: fc.integer({ min: 0, max: 20 }), period: fc.constantFrom<"day" | "month" | "total">("day", "month", "total") }),
            { nil: null, freq: 3 },
          ),
          member: fc.constantFrom<0 | 1>(0, 1),
          threshold: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null, freq: 3 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      items: fc.array(
        fc.record({
          key: fc.nat(),
          outcome: fc.constantFrom<Outcome>("found", "found", "found", "not_found", "400", "429", "500"),
          cost: fc.constantFrom(1, 2, 4),
        }),
        { minLength: 1, maxLength: 14 },
      ),
    });
    let plain = 0;
    let other = 0;
    await fc.assert(
      fc.asyncProperty(scenario, fc.boolean(), async (drawn, simple) => {
        // Half the runs: no caps, budgets or alert lines, and a full pool (plain batches, mostly).
        const { pool, budget, keys, items } = simple
          ? { ...drawn, pool: drawn.pool + 200, budget: null, keys: drawn.keys.map((key) => ({ ...key, cap: null, threshold: null })) }
          : drawn;
        const twin = async () => {
          const owner = await user();
          const member = await user();
          const team = await newTeam(db(), owner.id, pool, [{ userId: member.id, budget }]);
          // The in-order policy takes a batch's keys by id: the twins' keys get their specs in id
          // order, so that both take the same pool in the same order.
          const ids: string[] = [];
          for (const _spec of keys) ids.push((await newPooledKey(db(), team, owner.id)).id);
          ids.sort();
          for (const [index, spec] of (keys as KeySpec[]).entries()) {
            await db().query(
              `UPDATE api_keys SET owner_id = $2, alert_threshold_credits = $3,
                 daily_credit_cap = CASE WHEN $5::text = 'day' THEN $4::bigint END,
                 spend_cap_credits = CASE WHEN $5::text <> 'day' THEN $4::bigint END,
                 spend_cap_period = CASE WHEN $5::text <> 'day' THEN $5::text END
               WHERE id = $1`,
              [ids[index], spec.member === 0 ? owner.id : member.id, spec.threshold, spec.cap?.credits ?? null, spec.cap?.period ?? null],
            );
          }
          return { team, ids };
        };
        const [fast, inOrder] = [await twin(), await twin()];
        const at = new Date().toISOString();
        const batch = (ids: string[]) => {
          const requestIds = items.map(() => crypto.randomUUID());
          const json = JSON.stringify(
            items.map((item, ord) => ({
              ord,
              request_id: requestIds[ord],
              key_id: ids[item.key % ids.length],
              operation: "followers",
              cost: item.cost,
              outcome: item.outcome,
              final_status: null,
              latency_ms: ord,
              params_summary: `n=${ord}`,
              created_at: at,
              deadline: new Date(Date.now() + 60_000).toISOString(),
            })),
          );
          return { json, requestIds };
        };
        const [a, b] = [batch(fast.ids), batch(inOrder.ids)];
        const [check] = await db().query<{ plain: boolean }>("SELECT settle_batch_is_plain($1::json) AS plain", [a.json]);
        if (check?.plain) plain += 1;
        else other += 1;
        const answers = async (fn: string, json: string, requestIds: string[]) => {
          const rows = await db().query<{ r_request_id: string; r_status: number; r_charged: number; r_remaining: number }>(
            `SELECT r_request_id, r_status, r_charged, r_remaining::int AS r_remaining FROM ${fn}($1::json)`,
            [json],
          );
          return requestIds.map((id) => rows.find((row) => row.r_request_id === id)).map((row) => row && [row.r_status, row.r_charged, row.r_remaining]);
        };
        expect(await answers("settle_requests", a.json, a.requestIds)).toEqual(await answers("settle_requests_in_order", b.json, b.requestIds));
        const written = async (team: string, ids: string[]) => ({
          pool: await poolOf(db(), team),
          usage: await db().query(
            `SELECT k.ord, u.status, u.credits_charged, u.reason, u.params_summary
             FROM usage_events u JOIN unnest($1::text[]) WITH ORDINALITY AS k(id, ord) ON k.id = u.key_id ORDER BY k.ord, u.params_summary`,
            [ids],
          ),
          alerts: await db().query(
            `SELECT k.ord, a.kind, a.credits_remaining::int FROM key_alerts a JOIN unnest($1::text[]) WITH ORDINALITY AS k(id, ord) ON k.id = a.key_id
             ORDER BY a.id`,
            [ids],
          ),
        });
        expect(await written(fast.team, fast.ids)).toEqual(await written(inOrder.team, inOrder.ids));
      }),
      { numRuns: 40, seed: 20261128 },
    );
    expect(plain).toBeGreaterThan(5);
    expect(other).toBeGreaterThan(5);
  }, 120_000);
});

describe.each(await testDatabases())("a team's pool's alerts, refills and forecast on $name", (database) => {
  const db = openForSuite(database);

  it("fires the thresholds of the keys that draw from it as the pool crosses them, and re-arms them", async () => {
    const owner = await newUser(db(), `${crypto.randomUUID()}@example.test`);
    const team = await newTeam(db(), owner.id, 100);
    const key = await newPooledKey(db(), team, owner.id);
    await replaceThresholds(db(), key.id, [{ credits: 50 }, { percent: 20 }]);
    const settler = createSettler(async () => db());
    for (let index = 0; index < 20; index += 1) await settler.settle(request(key.id, "found", 4));
    const alerts = await db().query<{ kind: string; threshold_credits: number; credits_remaining: number }>(
      "SELECT kind, threshold_credits::int, credits_remaining::int FROM key_alerts WHERE key_id = $1 ORDER BY id",
      [key.id],
    );
    expect(alerts).toEqual([
      { kind: "threshold", threshold_credits: 50, credits_remaining: 48 },
      { kind: "threshold", threshold_credits: 20, credits_remaining: 20 },
    ]);
    // Topped up above both lines, they fire again on the next crossing.
    await db().query("UPDATE workspaces SET pool_credits = pool_credits + 100, pool_granted = pool_granted + 100 WHERE id = $1", [team]);
    expect((await thresholdsOfKeys(db(), [key.id])).get(key.id)?.map((threshold) => threshold.armed)).toEqual([true, true]);
  });

  it("refills a pool once per period, audited in its workspace; a pooled key's own refill never runs", async () => {
    const owner = await newUser(db(), `${crypto.randomUUID()}@example.test`);
    const team = await newTeam(db(), owner.id, 30);
    const key = await newPooledKey(db(), team, owner.id);
    await db().query(
      "UPDATE api_keys SET refill_credits = 1000, refill_interval = 'daily', refill_mode = 'increase_by', refilled_period = NULL WHERE id = $1",
      [key.id],
    );
    expect(await setPoolRefill(db(), team, { credits: 200, interval: "daily", dayOfMonth: null, mode: "top_up_to" })).toBe(true);
    const tomorrow = new Date(Date.now() + 86_400_000);
    const first = await refillDuePools(db(), tomorrow);
    expect(first.find((entry) => entry.workspaceId === team)).toMatchObject({ creditsAdded: 170, creditsRemaining: 200 });
    expect((await refillDuePools(db(), tomorrow)).find((entry) => entry.workspaceId === team)).toBeUndefined();
    expect((await refillDueKeys(db(), tomorrow)).find((entry) => entry.keyId === key.id)).toBeUndefined();
    expect(await poolOf(db(), team)).toBe(200);
    const [audit] = await db().query<{ action: string; workspace_id: string }>(
      "SELECT action, workspace_id FROM audit_log WHERE target_id = $1 ORDER BY id DESC LIMIT 1",
      [team],
    );
    expect(audit).toEqual({ action: "pool.refill", workspace_id: team });
    // A personal workspace has no pool to refill.
    expect(await setPoolRefill(db(), `wsp_${owner.id}`, { credits: 5, interval: "daily", dayOfMonth: null, mode: "increase_by" })).toBe(false);
  });

  it("forecasts pooled keys once, by the pool: its credits, burnt by all its keys", async () => {
    const owner = await newUser(db(), `${crypto.randomUUID()}@example.test`);
    const team = await newTeam(db(), owner.id, 1000);
    const [mine, theirs] = [await newPooledKey(db(), team, owner.id), await newPooledKey(db(), team, owner.id)];
    const settler = createSettler(async () => db());
    for (let index = 0; index < 5; index += 1) await settler.settle(request(theirs.id, "found", 4));
    const forecast = await burnRateForecast(db(), { kind: "keys", keyIds: [mine.id] });
    expect(forecast.keys).toEqual([]);
    expect(forecast.pools).toHaveLength(1);
    expect(forecast.pools[0]).toMatchObject({ workspaceId: team, keysInScope: 1, creditsRemaining: 980, creditsSpent: 20 });
    expect(forecast.pools[0]?.daysLeft).toBeGreaterThan(0);
    // Both keys in scope: still one pool, counted once.
    const both = await burnRateForecast(db(), { kind: "keys", keyIds: [mine.id, theirs.id] });
    expect(both.keys).toEqual([]);
    expect(both.pools.map((pool) => [pool.workspaceId, pool.keysInScope, pool.creditsRemaining])).toEqual([[team, 2, 980]]);
  });
});
