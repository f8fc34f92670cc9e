import type { Queryable } from "@/lib/db/client";
import { addDays, DAY_MS, dayStart, utcDay } from "./period";
import { scopeCondition, type UsageScope } from "./scope";
import { keyLabelSql } from "@/lib/keys/label";

/**
 * Burn-rate forecast: at the rate of the last 7 days, when does each usable key (usable_keys) run out?
 *
 * rate = credits charged over the window ÷ the window's length in days, where the window runs
 * from midnight UTC six days ago (seven calendar days, today included) — or from the key's
 * creation when that is later — up to now, counted as at least one day so a key minutes old is
 * not extrapolated from minutes. daysLeft = creditsRemaining ÷ rate; null when the key spent
 * nothing in the window (no rate, no forecast).
 *
 * A key that draws from a team's pool runs out when the pool does, so such keys are not
 * forecast one by one (each would repeat the pool's figures): the pool is forecast once — its
 * credits, burnt by all its keys (those outside the scope too), and its refill.
 */
type Forecast = {
  creditsRemaining: number;
  /** Credits charged in the window. */
  creditsSpent: number;
  /** Length of the window in days (1 to 7, fractional). */
  windowDays: number;
  creditsPerDay: number;
  /** null: no spend in the window. 0: already empty. */
  daysLeft: number | null;
  runsOutAt: string | null;
  /** When the automatic refill next runs; null: none, or it stopped (its allowance could not pay). */
  nextRefillAt: string | null;
  /** Whether it runs out before that refill at this rate; null: no refill, or no rate. */
  runsOutBeforeRefill: boolean | null;
};

/** A key with a balance of its own. */
export type KeyForecast = Forecast & { keyId: string; keyName: string };

/** A team's pool, for the keys of the scope that draw from it. */
export type PoolForecast = Forecast & {
  workspaceId: string;
  workspaceName: string;
  /** Usable keys of the scope drawing from the pool. */
  keysInScope: number;
};

export type ForecastResult = {
  /** Keys with their own balance, soonest to run out first, at most MAX_FORECAST_KEYS. */
  keys: KeyForecast[];
  /** Usable keys with their own balance in the scope. */
  totalKeys: number;
  /** The pools the scope's other keys draw from, soonest to run out first. */
  pools: PoolForecast[];
};

export const FORECAST_WINDOW_DAYS = 7;
export const MAX_FORECAST_KEYS = 100;

type HolderRow = {
  id: string;
  name: string;
  credits_remaining: number;
  created_at: Date | string;
  spent: number;
  next_refill_at: Date | string | null;
};

const forecastOf = (row: HolderRow, windowStart: number, now: Date): Forecast => {
  const from = Math.max(windowStart, new Date(row.created_at).getTime());
  const windowDays = Math.min(FORECAST_WINDOW_DAYS, Math.max(1, (now.getTime() - from) / DAY_MS));
  const creditsPerDay = row.spent / windowDays;
  const daysLeft = creditsPerDay > 0 ? row.credits_remaining / creditsPerDay : null;
  const runsOutAt = daysLeft === null ? null : new Date(now.getTime() + daysLeft * DAY_MS);
  const nextRefillAt = row.next_refill_at === null ? null : new Date(row.next_refill_at);
  return {
    creditsRemaining: row.credits_remaining,
    creditsSpent: row.spent,
    windowDays,
    creditsPerDay,
    daysLeft,
    runsOutAt: runsOutAt?.toISOString() ?? null,
    nextRefillAt: nextRefillAt?.toISOString() ?? null,
    runsOutBeforeRefill: runsOutAt === null || nextRefillAt === null ? null : runsOutAt.getTime() < nextRefillAt.getTime(),
  };
};

const soonestFirst = <T extends Forecast>(name: (entry: T) => string, id: (entry: T) => string) => (a: T, b: T) =>
  (a.daysLeft ?? Number.POSITIVE_INFINITY) - (b.daysLeft ?? Number.POSITIVE_INFINITY) || name(a).localeCompare(name(b)) || id(a).localeCompare(id(b));

export const burnRateForecast = async (db: Queryable, scope: UsageScope, now = new Date()): Promise<ForecastResult> => {
  const firstDay = addDays(utcDay(now), -(FORECAST_WINDOW_DAYS - 1));
  const params: unknown[] = [firstDay];
  const spendScope = scopeCondition(scope, params, "key_id");
  const keyScope = scopeCondition(scope, params, "k.id");
  const nowParam = `$${params.length + 1}::timestamptz`;
  const keyRows = await db.query<HolderRow>(
    `WITH spend AS (
       SELECT key_id, sum(credits)::float8 AS credits FROM usage_daily
       WHERE day >= $1::date AND ${spendScope} GROUP BY key_id
     )
     SELECT k.id, ${keyLabelSql("k.name", "u.email")} AS name, k.credits_remaining::float8 AS credits_remaining, k.created_at,
       COALESCE(s.credits, 0)::float8 AS spent,
       CASE WHEN k.refill_credits IS NOT NULL AND k.refill_stopped_at IS NULL
            THEN next_refill_at(k.refill_interval, k.refill_day_of_month, ${nowParam}) END AS next_refill_at
     FROM api_keys k LEFT JOIN spend s ON s.key_id = k.id LEFT JOIN users u ON u.id = k.owner_id
     WHERE k.pool_id IS NULL AND k.id IN (SELECT id FROM usable_keys) AND ${keyScope}`,
    [...params, now.toISOString()],
  );
  const poolParams: unknown[] = [firstDay];
  const pooledScope = scopeCondition(scope, poolParams, "k.id");
  const poolNow = `$${poolParams.length + 1}::timestamptz`;
  const poolRows = await db.query<HolderRow & { keys_in_scope: number }>(
    `WITH pools AS (
       SELECT k.pool_id, count(*)::float8 AS keys_in_scope FROM api_keys k
       WHERE k.pool_id IS NOT NULL AND k.id IN (SELECT id FROM usable_keys) AND ${pooledScope} GROUP BY k.pool_id
     ), pool_spend AS (
       SELECT pk.pool_id, sum(d.credits)::float8 AS credits FROM usage_daily d JOIN api_keys pk ON pk.id = d.key_id
       WHERE d.day >= $1::date AND pk.pool_id IN (SELECT pool_id FROM pools) GROUP BY pk.pool_id
     )
     SELECT w.id, w.name, w.pool_credits::float8 AS credits_remaining, w.created_at, p.keys_in_scope,
       COALESCE(ps.credits, 0)::float8 AS spent,
       CASE WHEN w.refill_credits IS NOT NULL THEN next_refill_at(w.refill_interval, w.refill_day_of_month, ${poolNow}) END AS next_refill_at
     FROM pools p JOIN workspaces w ON w.id = p.pool_id LEFT JOIN pool_spend ps ON ps.pool_id = p.pool_id`,
    [...poolParams, now.toISOString()],
  );
  const windowStart = dayStart(firstDay).getTime();
  const keys = keyRows
    .map((row): KeyForecast => ({ keyId: row.id, keyName: row.name, ...forecastOf(row, windowStart, now) }))
    .sort(soonestFirst((entry) => entry.keyName, (entry) => entry.keyId));
  const pools = poolRows
    .map(
      (row): PoolForecast => ({
        workspaceId: row.id,
        workspaceName: row.name,
        keysInScope: Number(row.keys_in_scope),
        ...forecastOf(row, windowStart, now),
      }),
    )
    .sort(soonestFirst((entry) => entry.workspaceName, (entry) => entry.workspaceId));
  return { keys: keys.slice(0, MAX_FORECAST_KEYS), totalKeys: keys.length, pools };
};

export { describeDaysLeft } from "./days-left";
