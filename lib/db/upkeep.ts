import type { Queryable } from "./types";

/**
 * PGlite runs no autovacuum daemon, so its tables are never analysed — and a plpgsql function's
 * plan, once cached, stays as the planner made it against the table sizes of that moment. The
 * settle functions are planned by the first requests after a start, when usage_events may be
 * nearly empty: a join planned then as a scan becomes a scan of millions of rows per request as
 * the table grows (measured: an MCP tool call's database time tripled within 100,000 rows).
 * This is autovacuum's analyse rule for the embedded database: a table changed by more than
 * 50 rows + 10 % of its size since it was last analysed is analysed — which also makes every
 * cached plan over it be planned again. PostgreSQL's own daemon does this on a server.
 */
export const UPKEEP_INTERVAL_MS = 30_000;

const STALE_TABLES = /* sql */ `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.n_mod_since_analyze > 50 + 0.1 * GREATEST(c.reltuples, 0)
     OR (c.reltuples < 0 AND pg_relation_size(s.relid) > 0)
  ORDER BY s.n_mod_since_analyze DESC`;

/** Analyses the tables changed enough since their last analysis, or never analysed; returns their names. */
export const analyzeStaleTables = async (db: Queryable): Promise<string[]> => {
  const stale = await db.query<{ name: string }>(STALE_TABLES);
  for (const { name } of stale) await db.query(`ANALYZE ${name}`);
  return stale.map(({ name }) => name);
};

/**
 * Checks every `intervalMs` in the background (never keeping the process alive), through `db`
 * — long reads, so the analysis waits for a moment no request is using the database. Tables
 * never analysed (a fresh start of a data folder) are analysed at once. Returns a stop function.
 */
export const startUpkeep = (db: Queryable, onError: (error: unknown) => void, intervalMs = UPKEEP_INTERVAL_MS): (() => Promise<void>) => {
  let running: Promise<unknown> = analyzeStaleTables(db).catch(onError);
  const timer = setInterval(() => {
    running = running.then(() => analyzeStaleTables(db)).catch(onError);
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running.catch(() => undefined);
  };
};
