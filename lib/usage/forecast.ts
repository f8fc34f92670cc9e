import type { Queryable } from "@/lib/db/client";
import { addDays, DAY_MS, dayStart, utcDay } from "./period";
import { scopeCondition, type UsageScope } from "./scope";

/**
 * Burn-rate forecast: at the rate of the last 7 days, when does each usable key (usable_keys) run out?
 *
 * rate = credits charged over the window ÷ the window's length in days, where the window runs
 * from midnight UTC six days ago (seven calendar days, today included) — or from the key's
 * creation when that is later — up to now, counted as at least one day so a key minutes old is
 * not extrapolated from minutes. daysLeft = creditsRemaining ÷ rate; null when the key spent
 * nothing in the window (no rate, no forecast).
 */
export type KeyForecast = {
  keyId: string;
  keyName: string;
  creditsRemaining: number;
  /** Credits charged in the window. */
  creditsSpent: number;
  /** Length of the window in days (1 to 7, fractional). */
  windowDays: number;
  creditsPerDay: number;
  /** null: no spend in the window. 0: already empty. */
  daysLeft: number | null;
  runsOutAt: string | null;
  /** When the key's automatic refill next runs; null: it has none, or it stopped (its allowance could not pay). */
  nextRefillAt: string | null;
  /** Whether it runs out before that refill at this rate; null: no refill, or no rate. */
  runsOutBeforeRefill: boolean | null;
};

export type ForecastResult = {
  keys: KeyForecast[];
  /** Active keys in the scope; `keys` holds at most MAX_FORECAST_KEYS of them, soonest to run out first. */
  totalKeys: number;
};

export const FORECAST_WINDOW_DAYS = 7;
export const MAX_FORECAST_KEYS = 100;

type ForecastRow = {
  id: string;
  name: string;
  credits_remaining: number;
  created_at: Date | string;
  spent: number;
  next_refill_at: Date | string | null;
};

export const burnRateForecast = async (db: Queryable, scope: UsageScope, now = new Date()): Promise<ForecastResult> => {
  const firstDay = addDays(utcDay(now), -(FORECAST_WINDOW_DAYS - 1));
  const params: unknown[] = [firstDay];
  const spendScope = scopeCondition(scope, params, "key_id");
  const keyScope = scopeCondition(scope, params, "k.id");
  const rows = await db.query<ForecastRow>(
    // A key that draws from a team's pool runs out when the pool does: the pool's credits, burnt by
    // all its keys (those outside the scope too), and the pool's refill.
    `WITH spend AS (
       SELECT key_id, sum(credits)::float8 AS credits FROM usage_daily
       WHERE day >= $1::date AND ${spendScope} GROUP BY key_id
     ), pool_spend AS (
       SELECT pk.pool_id, sum(d.credits)::float8 AS credits FROM usage_daily d JOIN api_keys pk ON pk.id = d.key_id
       WHERE d.day >= $1::date AND pk.pool_id IN (SELECT k.pool_id FROM api_keys k WHERE ${keyScope}) GROUP BY pk.pool_id
     )
     SELECT k.id, k.name, COALESCE(w.pool_credits, k.credits_remaining)::float8 AS credits_remaining, COALESCE(w.created_at, k.created_at) AS created_at,
       COALESCE(CASE WHEN k.pool_id IS NULL THEN s.credits ELSE ps.credits END, 0)::float8 AS spent,
       CASE WHEN k.pool_id IS NULL AND k.refill_credits IS NOT NULL AND k.refill_stopped_at IS NULL
              THEN next_refill_at(k.refill_interval, k.refill_day_of_month, $${params.length + 1}::timestamptz)
            WHEN w.refill_credits IS NOT NULL THEN next_refill_at(w.refill_interval, w.refill_day_of_month, $${params.length + 1}::timestamptz) END AS next_refill_at
     FROM api_keys k LEFT JOIN spend s ON s.key_id = k.id
       LEFT JOIN workspaces w ON w.id = k.pool_id LEFT JOIN pool_spend ps ON ps.pool_id = k.pool_id
     WHERE k.id IN (SELECT id FROM usable_keys) AND ${keyScope}`,
    [...params, now.toISOString()],
  );
  const windowStart = dayStart(firstDay).getTime();
  const forecasts = rows.map((row): KeyForecast => {
    const from = Math.max(windowStart, new Date(row.created_at).getTime());
    const windowDays = Math.min(FORECAST_WINDOW_DAYS, Math.max(1, (now.getTime() - from) / DAY_MS));
    const creditsPerDay = row.spent / windowDays;
    const daysLeft = creditsPerDay > 0 ? row.credits_remaining / creditsPerDay : null;
    const runsOutAt = daysLeft === null ? null : new Date(now.getTime() + daysLeft * DAY_MS);
    const nextRefillAt = row.next_refill_at === null ? null : new Date(row.next_refill_at);
    return {
      keyId: row.id,
      keyName: row.name,
      creditsRemaining: row.credits_remaining,
      creditsSpent: row.spent,
      windowDays,
      creditsPerDay,
      daysLeft,
      runsOutAt: runsOutAt?.toISOString() ?? null,
      nextRefillAt: nextRefillAt?.toISOString() ?? null,
      runsOutBeforeRefill: runsOutAt === null || nextRefillAt === null ? null : runsOutAt.getTime() < nextRefillAt.getTime(),
    };
  });
  forecasts.sort(
    (a, b) =>
      (a.daysLeft ?? Number.POSITIVE_INFINITY) - (b.daysLeft ?? Number.POSITIVE_INFINITY) ||
      a.keyName.localeCompare(b.keyName) ||
      a.keyId.localeCompare(b.keyId),
  );
  return { keys: forecasts.slice(0, MAX_FORECAST_KEYS), totalKeys: forecasts.length };
};

export { describeDaysLeft } from "./days-left";
