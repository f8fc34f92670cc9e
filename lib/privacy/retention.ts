import type { Queryable } from "@/lib/db/client";
import { kindsOf, registry, type Registry } from "@/lib/operations";
import type { RecordKind } from "@/lib/records/kinds";

/**
 * Retention limits (docs/security.md), applied by the sweep: batch result pages (the batch, its
 * inputs and per-page status and credits stay), per-request usage rows (the daily rollups in
 * usage_daily stay: charts, totals and budgets read those, so they do not change), and records
 * cached from the upstream provider (of every kind of record, lib/records/kinds.ts), whatever their TTL. Credits, keys, rollups and the audit log
 * are never touched. `now` is the sweep's clock (tests pass their own).
 */
export type RetentionLimits = { batchResultsDays: number; requestLogDays: number; upstreamCacheDays: number };

export type RetentionReport = { batchPages: number; requestRows: number; cachePages: number; cachedRecords: number };

const DAY_MS = 86_400_000;
// Usage rows go in chunks: a first sweep over a long history must not hold one huge transaction.
const USAGE_CHUNK = 5000;

const before = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);

const deleted = async (db: Queryable, sql: string, params: unknown[]) => (await db.query(sql, params)).length;

const sweepRequestLog = async (db: Queryable, cutoff: Date): Promise<number> => {
  let total = 0;
  for (;;) {
    // 102: a reservation still pending is live state (credits_spent_today reads it), not history.
    const removed = await deleted(
      db,
      `DELETE FROM usage_events WHERE id IN (
         SELECT id FROM usage_events WHERE created_at < $1 AND status <> 102 ORDER BY created_at LIMIT $2)
       RETURNING id`,
      [cutoff, USAGE_CHUNK],
    );
    total += removed;
    if (removed < USAGE_CHUNK) return total;
  }
};

const sweepUpstreamCache = async (db: Queryable, cutoff: Date, kinds: readonly RecordKind[]) => {
  let cachedRecords = 0;
  for (const { cacheKind, tables: { owners, idColumn, entries } } of kinds) {
    // A cached list goes whole when any of its pages is too old: its entries are as old as that page.
    const pageTooOld =
      entries === undefined ? "" : ` OR EXISTS (
         SELECT 1 FROM upstream_pages p WHERE p.kind = $2 AND p.subject = o.${idColumn} AND p.fetched_at < $1)`;
    cachedRecords += await deleted(
      db,
      `DELETE FROM ${owners} o WHERE o.source = 'upstream' AND (o.fetched_at < $1${pageTooOld})
       RETURNING o.${idColumn}`,
      entries === undefined ? [cutoff] : [cutoff, cacheKind],
    );
  }
  const cachePages = await deleted(db, "DELETE FROM upstream_pages WHERE fetched_at < $1 RETURNING page", [cutoff]);
  for (const { tables } of kinds) if (tables.cursors) await db.query(`DELETE FROM ${tables.cursors.table} WHERE created_at < $1`, [cutoff]);
  return { cachePages, cachedRecords };
};

export const sweepRetention = async (db: Queryable, limits: RetentionLimits, now: Date, operations: Registry = registry): Promise<RetentionReport> => {
  const batchPages = await deleted(
    db,
    "UPDATE batch_items SET data = NULL, summary = NULL WHERE data IS NOT NULL AND finished_at < $1 RETURNING page",
    [before(now, limits.batchResultsDays)],
  );
  const requestRows = await sweepRequestLog(db, before(now, limits.requestLogDays));
  return { batchPages, requestRows, ...(await sweepUpstreamCache(db, before(now, limits.upstreamCacheDays), kindsOf(operations))) };
};
