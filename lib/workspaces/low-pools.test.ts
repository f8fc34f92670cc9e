import { describe, expect, it } from "vitest";
import { replaceThresholds } from "@/lib/alerts/thresholds";
import { exposition, metrics } from "@/lib/metrics/registry";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { valueOf } from "@/tests/support/metric-deltas";
import { newPooledKey, newTeam, newUser } from "@/tests/support/usage";
import { countLowPools, watchLowPools } from "./low-pools";

/** pools_low_credits: team pools at or below a low-credit line of a key drawing from them, or empty. */
describe.each(await testDatabases())("low pools on $name", (database) => {
  const db = openForSuite(database);
  const owner = () => newUser(db(), `${crypto.randomUUID()}@example.test`);

  /** A team whose pool holds `credits` of `granted`, with one active key drawing from it. */
  const team = async (credits: number, granted: number, line: { credits?: number; percent?: number; own?: boolean } | null) => {
    const user = await owner();
    const id = await newTeam(db(), user.id, granted);
    await db().query("UPDATE workspaces SET pool_credits = $2 WHERE id = $1", [id, credits]);
    const key = await newPooledKey(db(), id, user.id);
    if (line?.own === true) {
      await db().query("UPDATE api_keys SET alert_threshold_credits = $2, alert_threshold_percent = $3 WHERE id = $1", [key.id, line.credits ?? null, line.percent ?? null]);
    } else if (line) {
      await replaceThresholds(db(), key.id, [line.credits === undefined ? { percent: line.percent ?? 0 } : { credits: line.credits }]);
    }
    return { id, keyId: key.id };
  };

  it("counts empty pools and pools at or below a line in credits or percent; not those above, nor pools no key draws from", async () => {
    const before = await countLowPools(db());
    await team(0, 100, null); // empty
    await team(50, 1000, { credits: 50 }); // at a line in credits
    await team(90, 1000, { percent: 10 }); // below 10 % of 1000
    await team(20, 1000, { credits: 20, own: true }); // at the key's own threshold
    await team(500, 1000, { credits: 50 }); // above its line
    await team(500, 1000, null); // no line
    const keyless = await newTeam(db(), (await owner()).id, 0); // empty, but no key draws from it
    expect(keyless).toMatch(/^wst_/);
    const revoked = await team(0, 100, null);
    await db().query("UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = $1", [revoked.keyId]);
    expect((await countLowPools(db())) - before).toBe(4);
  });

  it("sets the gauge at scrape time", async () => {
    let clock = 0;
    const done = watchLowPools(async () => db(), () => clock);
    try {
      await exposition();
      const first = await countLowPools(db());
      expect(await valueOf(metrics().poolsLowCredits)).toBe(first);
      await team(0, 10, null);
      clock += 15_000;
      await exposition();
      expect(await valueOf(metrics().poolsLowCredits)).toBe(first + 1);
    } finally {
      done();
    }
  });
});
