import type { Queryable } from "@/lib/db/client";
import { log } from "@/lib/log";

/**
 * Automatic refills: the policy is refill_keys() in lib/keys/refill.sql — one call that locks
 * every key whose period has started and not been refilled, then refills each with its audit
 * entry, taking what it adds from its payer's allowance (or stopping the refill when the allowance
 * cannot pay), so any number of instances may sweep at once and each period is refilled once.
 */
export type RefillInterval = "daily" | "monthly";
/** top_up_to: the balance is raised to `credits` (never lowered); increase_by: `credits` are added. */
export type RefillMode = "top_up_to" | "increase_by";

export type KeyRefill = {
  credits: number;
  interval: RefillInterval;
  /** Monthly only: the day (1-31) the period starts; a shorter month uses its last day. null: the 1st. */
  dayOfMonth: number | null;
  mode: RefillMode;
};

export type Refilled = { keyId: string; period: string; creditsAdded: number; creditsRemaining: number };

type RefillRow = { r_key_id: string; r_period: string; r_added: number | string; r_remaining: number | string };

/** Refills the keys due as of `at` (the database's clock when omitted). */
export const refillDueKeys = async (db: Queryable, at?: Date): Promise<Refilled[]> => {
  const rows = await db.query<RefillRow>("SELECT r_key_id, r_period::text AS r_period, r_added, r_remaining FROM refill_keys(COALESCE($1::timestamptz, now()))", [at?.toISOString() ?? null]);
  const refilled = rows.map((row) => ({
    keyId: row.r_key_id,
    period: row.r_period,
    creditsAdded: Number(row.r_added),
    creditsRemaining: Number(row.r_remaining),
  }));
  if (refilled.length > 0) log.info("refilled keys", { keys: refilled.length });
  return refilled;
};

export type PoolRefilled = { workspaceId: string; period: string; creditsAdded: number; creditsRemaining: number };

type PoolRefillRow = { r_workspace_id: string; r_period: string; r_added: number | string; r_remaining: number | string };

/** Refills the team pools due as of `at` (refill_pools in lib/keys/refill.sql; the database's clock when omitted). */
export const refillDuePools = async (db: Queryable, at?: Date): Promise<PoolRefilled[]> => {
  const rows = await db.query<PoolRefillRow>(
    "SELECT r_workspace_id, r_period::text AS r_period, r_added, r_remaining FROM refill_pools(COALESCE($1::timestamptz, now()))",
    [at?.toISOString() ?? null],
  );
  const refilled = rows.map((row) => ({
    workspaceId: row.r_workspace_id,
    period: row.r_period,
    creditsAdded: Number(row.r_added),
    creditsRemaining: Number(row.r_remaining),
  }));
  if (refilled.length > 0) log.info("refilled pools", { pools: refilled.length });
  return refilled;
};

/** Sets (or, with null, removes) a team pool's automatic refill; false when there is no such team workspace. */
export const setPoolRefill = async (db: Queryable, workspaceId: string, refill: KeyRefill | null): Promise<boolean> => {
  const rows = await db.query<{ id: string }>(
    `UPDATE workspaces SET refill_credits = $2, refill_interval = $3, refill_day_of_month = $4, refill_mode = $5,
       refilled_period = CASE WHEN $2::bigint IS NULL THEN NULL ELSE refill_period_start($3, $4, now()) END
     WHERE id = $1 AND personal_user_id IS NULL RETURNING id`,
    [workspaceId, refill?.credits ?? null, refill?.interval ?? null, refill === null ? null : refill.dayOfMonth, refill?.mode ?? null],
  );
  return rows.length > 0;
};
