import type { Queryable } from "@/lib/db/client";
import { registry as defaultRegistry, type Registry } from "@/lib/operations";
import { burnRateForecast, type ForecastResult } from "./forecast";
import { addBuckets, emptyBuckets, LATENCY_BUCKETS, percentileMs } from "./latency";
import { keyNames, memberLabel, memberNames, NO_MEMBER, type MemberName } from "./group-labels";
import { daysBetween, type Day } from "./period";
import { scopeCondition, type UsageScope } from "./scope";

/**
 * Usage totals and chart series for a scope and a range of UTC days, read from the daily
 * rollup (usage_daily: one row per key, day, operation and status, written in the same
 * transaction as each usage record), so a month over millions of requests is a few hundred
 * rows. Pending reservations (status 102) never reach the rollup: a request counts once it
 * is finished.
 *
 * - successful = status 200; failed = everything else (400, 402, 404, 429, 500);
 *   errorRate = failed / requests (0 without requests).
 * - credits = credits actually charged (only 200s are charged).
 * - latency: mean is exact (sum / count) in every group; p50/p95 are histogram bucket upper
 *   bounds over every finished request (lib/usage/latency.ts), given per operation and in the
 *   totals (null in day and key groups).
 * - creditsRemaining / activeKeys: the scope's usable keys now (usable_keys: active, unexpired,
 *   owner not disabled), not per period.
 */
export type GroupBy = "day" | "operation" | "key" | "member";
export const GROUP_BYS: readonly GroupBy[] = ["day", "operation", "key", "member"];

export type StatusClass = "2xx" | "4xx" | "5xx";

export type LatencyStats = { meanMs: number | null; p50Ms: number | null; p95Ms: number | null };

export type UsageMetrics = {
  requests: number;
  successful: number;
  failed: number;
  credits: number;
  /** Requests per status class. */
  statusClasses: Record<StatusClass, number>;
  /** Requests per exact status, e.g. { "200": 12, "402": 1 }. */
  statuses: Record<string, number>;
  /** Requests and credits per operation (every known operation, zero when unused). */
  operations: Record<string, { requests: number; credits: number }>;
  latency: LatencyStats;
};

/**
 * One row of a chart: a day ("2025-06-14"), an operation name, a key id, or a member — the user
 * who made the keys, whoever's their usage stays after they leave ("none" for operator keys) —
 * ("other" for the keys or members beyond MAX_KEY_GROUPS).
 */
export type UsageGroup = UsageMetrics & {
  id: string;
  label: string;
  /** Member groups: who, as the users table names them now (absent for "none" and "other"). */
  member?: MemberName;
};

export type UsageTotals = UsageMetrics & { errorRate: number; creditsRemaining: number; activeKeys: number };

export type UsageSummary = {
  from: Day;
  to: Day;
  totals: UsageTotals;
  groups: Partial<Record<GroupBy, UsageGroup[]>>;
  forecast: ForecastResult;
};

/** Key groups beyond this many (by credits) are summed into one "other" group. */
export const MAX_KEY_GROUPS = 50;

type RollupRow = {
  grp: string;
  operation: string;
  status: number;
  requests: number;
  credits: number;
  latency_ms_sum: number;
  /** null outside the operation rollup. */
  buckets: number[] | null;
};

const DIMENSIONS: Record<GroupBy, string> = {
  day: "to_char(day, 'YYYY-MM-DD')",
  operation: "operation",
  key: "key_id",
  // The key's maker: a member's usage stays theirs after removal (their keys keep owner_id), and
  // so does the key of no one that finishes their batches (on_behalf_of); NO_MEMBER for the key CLI's.
  member: `COALESCE((SELECT COALESCE(k.owner_id, k.on_behalf_of) FROM api_keys k WHERE k.id = usage_daily.key_id), '${NO_MEMBER}')`,
};

// float8 reads back as a JS number on PGlite and pg alike; the sums stay far below 2^53.
const BUCKET_SUMS = `ARRAY[${Array.from({ length: LATENCY_BUCKETS }, (_, index) => `sum(latency_buckets[${index + 1}])`).join(", ")}]::float8[]`;

// Histograms are summed only where percentiles are reported (per operation, and the totals):
// adding 16 arrays' worth of sums to the day and key series would cost more than all the rest.
const rollup = (db: Queryable, scope: UsageScope, from: Day, to: Day, groupBy: GroupBy): Promise<RollupRow[]> => {
  const params: unknown[] = [from, to];
  return db.query<RollupRow>(
    `SELECT ${DIMENSIONS[groupBy]} AS grp, operation, status,
       sum(requests)::float8 AS requests, sum(credits)::float8 AS credits, sum(latency_ms_sum)::float8 AS latency_ms_sum,
       ${groupBy === "operation" ? BUCKET_SUMS : "NULL::float8[]"} AS buckets
     FROM usage_daily
     WHERE day BETWEEN $1::date AND $2::date AND status <> 102 AND ${scopeCondition(scope, params, "key_id")}
     GROUP BY 1, 2, 3`,
    params,
  );
};

type Accumulator = {
  requests: number;
  successful: number;
  credits: number;
  latencyMsSum: number;
  statuses: Map<number, number>;
  operations: Map<string, { requests: number; credits: number }>;
  buckets: number[];
  hasHistogram: boolean;
};

const newAccumulator = (operationIds: readonly string[]): Accumulator => ({
  requests: 0,
  successful: 0,
  credits: 0,
  latencyMsSum: 0,
  statuses: new Map(),
  operations: new Map(operationIds.map((name) => [name, { requests: 0, credits: 0 }])),
  buckets: emptyBuckets(),
  hasHistogram: false,
});

const accumulate = (into: Accumulator, row: RollupRow) => {
  into.requests += row.requests;
  if (row.status === 200) into.successful += row.requests;
  into.credits += row.credits;
  into.latencyMsSum += row.latency_ms_sum;
  into.statuses.set(row.status, (into.statuses.get(row.status) ?? 0) + row.requests);
  const operation = into.operations.get(row.operation) ?? { requests: 0, credits: 0 };
  operation.requests += row.requests;
  operation.credits += row.credits;
  into.operations.set(row.operation, operation);
  if (row.buckets) {
    into.hasHistogram = true;
    addBuckets(into.buckets, row.buckets.map(Number));
  }
};

const merge = (into: Accumulator, from: Accumulator) => {
  into.requests += from.requests;
  into.successful += from.successful;
  into.credits += from.credits;
  into.latencyMsSum += from.latencyMsSum;
  for (const [status, count] of from.statuses) into.statuses.set(status, (into.statuses.get(status) ?? 0) + count);
  for (const [name, value] of from.operations) {
    const operation = into.operations.get(name) ?? { requests: 0, credits: 0 };
    operation.requests += value.requests;
    operation.credits += value.credits;
    into.operations.set(name, operation);
  }
  addBuckets(into.buckets, from.buckets);
  into.hasHistogram ||= from.hasHistogram;
};

export const statusClassOf = (status: number): StatusClass | null => {
  if (status >= 200 && status < 300) return "2xx";
  if (status >= 400 && status < 500) return "4xx";
  if (status >= 500) return "5xx";
  return null;
};

const metricsOf = (acc: Accumulator): UsageMetrics => {
  const statusClasses: Record<StatusClass, number> = { "2xx": 0, "4xx": 0, "5xx": 0 };
  const statuses: Record<string, number> = {};
  for (const [status, count] of [...acc.statuses].sort(([a], [b]) => a - b)) {
    statuses[String(status)] = count;
    const statusClass = statusClassOf(status);
    if (statusClass) statusClasses[statusClass] += count;
  }
  return {
    requests: acc.requests,
    successful: acc.successful,
    failed: acc.requests - acc.successful,
    credits: acc.credits,
    statusClasses,
    statuses,
    operations: Object.fromEntries(acc.operations),
    latency: {
      meanMs: acc.requests > 0 ? Math.round((acc.latencyMsSum / acc.requests) * 10) / 10 : null,
      p50Ms: acc.hasHistogram ? percentileMs(acc.buckets, 0.5) : null,
      p95Ms: acc.hasHistogram ? percentileMs(acc.buckets, 0.95) : null,
    },
  };
};

const byGroup = (rows: RollupRow[], operationIds: readonly string[]): Map<string, Accumulator> => {
  const groups = new Map<string, Accumulator>();
  for (const row of rows) {
    const acc = groups.get(row.grp) ?? newAccumulator(operationIds);
    accumulate(acc, row);
    groups.set(row.grp, acc);
  }
  return groups;
};

const groupLabels = async (
  db: Queryable,
  groupBy: "key" | "member",
  ids: string[],
): Promise<(id: string) => Pick<UsageGroup, "label" | "member">> => {
  if (groupBy === "key") {
    const names = await keyNames(db, ids);
    return (id) => ({ label: names.get(id) ?? id });
  }
  const members = await memberNames(db, ids);
  return (id) => {
    const member = members.get(id);
    return member ? { label: memberLabel(id, member), member } : { label: memberLabel(id, member) };
  };
};

const buildGroups = async (
  db: Queryable,
  groupBy: GroupBy,
  rows: RollupRow[],
  range: { from: Day; to: Day; operationIds: readonly string[] },
): Promise<UsageGroup[]> => {
  const { from, to, operationIds } = range;
  const groups = byGroup(rows, operationIds);
  if (groupBy === "day") {
    // Every day of the range, zero-filled, so a chart's x axis has no gaps.
    return daysBetween(from, to).map((day) => ({ id: day, label: day, ...metricsOf(groups.get(day) ?? newAccumulator(operationIds)) }));
  }
  if (groupBy === "operation") {
    const names = [...new Set([...operationIds, ...groups.keys()])];
    return names.map((name) => ({ id: name, label: name, ...metricsOf(groups.get(name) ?? newAccumulator(operationIds)) }));
  }
  const ranked = [...groups].sort(([idA, a], [idB, b]) => b.credits - a.credits || b.requests - a.requests || idA.localeCompare(idB));
  const shown = ranked.slice(0, MAX_KEY_GROUPS);
  const labelOf = await groupLabels(db, groupBy, shown.map(([id]) => id));
  const result: UsageGroup[] = shown.map(([id, acc]) => ({ id, ...labelOf(id), ...metricsOf(acc) }));
  const rest = ranked.slice(MAX_KEY_GROUPS);
  if (rest.length > 0) {
    const other = newAccumulator(operationIds);
    for (const [, acc] of rest) merge(other, acc);
    result.push({ id: "other", label: `${rest.length} other ${groupBy === "key" ? "keys" : "members"}`, ...metricsOf(other) });
  }
  return result;
};

const remainingCredits = async (db: Queryable, scope: UsageScope): Promise<{ credits: number; keys: number }> => {
  const params: unknown[] = [];
  const rows = await db.query<{ credits: number; keys: number }>(
    // A team's pool counts once however many of its keys are in scope (key_credits: own or pool).
    `SELECT COALESCE(sum(credits), 0)::float8 AS credits, COALESCE(sum(keys), 0)::float8 AS keys FROM (
       SELECT max(credits_remaining) AS credits, count(*) AS keys FROM key_credits
       WHERE id IN (SELECT id FROM usable_keys) AND ${scopeCondition(scope, params, "id")}
       GROUP BY COALESCE(pool_id, id)) AS holders`,
    params,
  );
  return { credits: rows[0]?.credits ?? 0, keys: rows[0]?.keys ?? 0 };
};

export type SummaryOptions = {
  from: Day;
  to: Day;
  groupBy: readonly GroupBy[];
  /** The forecast's "now" (tests). */
  now?: Date;
  /** The operations every summary lists, at zero when unused. */
  registry?: Registry;
};

export const summary = async (db: Queryable, scope: UsageScope, options: SummaryOptions): Promise<UsageSummary> => {
  const { from, to } = options;
  const asked: GroupBy[] = options.groupBy.length > 0 ? [...new Set(options.groupBy)] : ["day"];
  // The operation rollup (the smallest, with histograms) always runs: the totals come from it.
  const dimensions: GroupBy[] = asked.includes("operation") ? asked : [...asked, "operation"];
  // Sequential on purpose: PGlite has one connection, and pg's pool would gain little here.
  const rowsBy = new Map<GroupBy, RollupRow[]>();
  for (const groupBy of dimensions) rowsBy.set(groupBy, await rollup(db, scope, from, to, groupBy));
  const groups: Partial<Record<GroupBy, UsageGroup[]>> = {};
  const operationIds = (options.registry ?? defaultRegistry).map((operation) => operation.id);
  for (const groupBy of asked) groups[groupBy] = await buildGroups(db, groupBy, rowsBy.get(groupBy) ?? [], { from, to, operationIds });

  // Every dimension covers the same rollup rows; the operation one also carries the histograms.
  const total = newAccumulator(operationIds);
  for (const row of rowsBy.get("operation") ?? []) accumulate(total, row);
  const metrics = metricsOf(total);
  const remaining = await remainingCredits(db, scope);
  return {
    from,
    to,
    totals: {
      ...metrics,
      errorRate: metrics.requests > 0 ? metrics.failed / metrics.requests : 0,
      creditsRemaining: remaining.credits,
      activeKeys: remaining.keys,
    },
    groups,
    forecast: await burnRateForecast(db, scope, options.now),
  };
};
