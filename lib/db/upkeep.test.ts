import { describe, expect, it } from "vitest";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { analyzeStaleTables } from "./upkeep";

describe.each(await testDatabases())("analyzeStaleTables on $name", (database) => {
  // Without the background analysis openDb starts for PGlite: a pass of it after the inserts
  // would analyse the probe table first, and the test's own call would find nothing stale.
  const db = openForSuite(database, { upkeep: false });

  /**
   * Runs a change on one connection and has that backend report its statistics as soon as it is
   * idle (else a backend may keep them up to 10 s: PGSTAT_IDLE_INTERVAL).
   */
  const change = (sql: string) =>
    db().transaction(async (tx) => {
      await tx.query(sql);
      await tx.query("SELECT pg_stat_force_next_flush()");
    });

  /** Waits until the statistics show `count` rows changed since the last analysis. */
  const changesReported = async (count: number) => {
    for (let attempt = 0; attempt < 150; attempt += 1) {
      await db().query("SELECT pg_stat_clear_snapshot()");
      const [row] = await db().query<{ n: string }>("SELECT n_mod_since_analyze::text AS n FROM pg_stat_user_tables WHERE relname = 'upkeep_probe'");
      if (Number(row?.n) === count) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the statistics never showed ${count} changed rows`);
  };

  const probed = async () => (await analyzeStaleTables(db())).some((name) => name.endsWith(".upkeep_probe"));

  // PostgreSQL's own autovacuum would analyse the probe table behind the test's back: off for it.
  it("analyses a table changed by more than 50 rows + 10 % since its last analysis, and only then", async () => {
    await db().exec("DROP TABLE IF EXISTS upkeep_probe; CREATE TABLE upkeep_probe (id integer PRIMARY KEY, note text) WITH (autovacuum_enabled = false)");
    await change("INSERT INTO upkeep_probe SELECT g, 'n' FROM generate_series(1, 2000) g");
    await changesReported(2000);
    expect(await probed()).toBe(true);
    const [after] = await db().query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 'upkeep_probe'");
    expect(Number(after?.reltuples)).toBe(2000);

    await changesReported(0);
    expect(await probed()).toBe(false);
    // 10 % of 2,000 plus 50 is 250: 240 changed rows are not enough, 260 are.
    await change("INSERT INTO upkeep_probe SELECT g, 'n' FROM generate_series(2001, 2240) g");
    await changesReported(240);
    expect(await probed()).toBe(false);
    await change("UPDATE upkeep_probe SET note = 'm' WHERE id <= 20");
    await changesReported(260);
    expect(await probed()).toBe(true);
    await db().exec("DROP TABLE upkeep_probe");
  });
});
