import type { Queryable } from "@/lib/db/client";
import type { AccountData } from "./account-schema";

/**
 * A key's balance and spend as GET /v1/account shows it (the edge is lib/api/account.ts).
 * Credits spent this month include reservations of requests still running.
 */
type AccountRow = {
  id: string;
  name: string;
  credits_remaining: number;
  credits_granted: number;
  qps_limit: number;
  daily_credit_cap: number | null;
  refill_credits: number | null;
  refill_interval: "daily" | "monthly" | null;
  refill_day_of_month: number | null;
  refill_mode: "top_up_to" | "increase_by" | null;
  next_refill_at: Date | string | null;
  today: number;
  month: number;
  pool_id: string | null;
  pool_credits: number | null;
  pool_granted: number | null;
  spend_cap_credits: number | null;
  spend_cap_period: "month" | "total" | null;
  cap_spent: number | null;
  budget_credits: number | null;
  budget_spent: number | null;
};

type Limit = AccountData["key"]["limited_by"];

/** The least of what each limit leaves, and which leaves it (the first listed on a tie). */
const spendable = (row: AccountRow): { credits: number; by: Limit } => {
  const limits: [Limit, number | null][] = [
    [row.pool_id === null ? "credits" : "pool", row.credits_remaining],
    ["daily_cap", row.daily_credit_cap === null ? null : row.daily_credit_cap - row.today],
    ["cap", row.spend_cap_credits === null ? null : row.spend_cap_credits - (row.cap_spent ?? 0)],
    ["budget", row.budget_credits === null ? null : row.budget_credits - (row.budget_spent ?? 0)],
  ];
  let least: { credits: number; by: Limit } = { credits: Math.max(0, row.credits_remaining), by: limits[0]![0] };
  for (const [by, left] of limits.slice(1)) if (left !== null && Math.max(0, left) < least.credits) least = { credits: Math.max(0, left), by };
  return least;
};

const accountOf = (row: AccountRow): AccountData["key"] => ({
  id: row.id,
  name: row.name,
  credits_remaining: row.credits_remaining,
  credits_granted: row.credits_granted,
  qps_limit: row.qps_limit,
  daily_credit_cap: row.daily_credit_cap,
  credits_spent_today: row.today,
  credits_spent_this_month: row.month,
  refill:
    row.refill_credits === null || row.refill_interval === null || row.refill_mode === null
      ? null
      : { credits: row.refill_credits, interval: row.refill_interval, dayOfMonth: row.refill_day_of_month, mode: row.refill_mode },
  nextRefillAt: row.next_refill_at === null ? null : new Date(row.next_refill_at).toISOString(),
  pool:
    row.pool_id === null
      ? null
      : { workspace_id: row.pool_id, credits_remaining: row.pool_credits ?? 0, credits_granted: row.pool_granted ?? 0 },
  cap:
    row.spend_cap_credits === null || row.spend_cap_period === null
      ? null
      : {
          credits: row.spend_cap_credits,
          period: row.spend_cap_period,
          credits_spent: row.cap_spent ?? 0,
          credits_left: Math.max(0, row.spend_cap_credits - (row.cap_spent ?? 0)),
        },
  budget:
    row.budget_credits === null
      ? null
      : {
          credits: row.budget_credits,
          credits_spent_this_month: row.budget_spent ?? 0,
          credits_left: Math.max(0, row.budget_credits - (row.budget_spent ?? 0)),
        },
  credits_spendable: spendable(row).credits,
  limited_by: spendable(row).by,
});

/**
 * The figures of several keys in one statement (one round trip, one plan), read fresh: the
 * statement starts after the caller asked, so it reflects every charge settled before. Keys that
 * are not (or no longer) usable are absent from the map.
 */
export const keyAccounts = async (db: Queryable, keyIds: readonly string[]): Promise<Map<string, AccountData["key"]>> => {
  const rows = await db.query<AccountRow>(
    `SELECT k.id, k.name, COALESCE(w.pool_credits, k.credits_remaining)::float8 AS credits_remaining,
       COALESCE(w.pool_granted, k.credits_granted)::float8 AS credits_granted,
       k.pool_id, w.pool_credits::float8 AS pool_credits, w.pool_granted::float8 AS pool_granted,
       k.spend_cap_credits::float8 AS spend_cap_credits, k.spend_cap_period,
       CASE WHEN k.spend_cap_credits IS NOT NULL THEN credits_spent_since(k.id, spend_cap_from(k.spend_cap_period))::float8 END AS cap_spent,
       m.monthly_budget_credits::float8 AS budget_credits,
       CASE WHEN m.monthly_budget_credits IS NOT NULL THEN member_credits_spent_this_month(m.workspace_id, m.user_id)::float8 END AS budget_spent,
       k.qps_limit, k.daily_credit_cap::float8 AS daily_credit_cap,
       k.refill_credits::float8 AS refill_credits, k.refill_interval, k.refill_day_of_month, k.refill_mode,
       CASE WHEN k.refill_credits IS NOT NULL AND k.refill_stopped_at IS NULL THEN next_refill_at(k.refill_interval, k.refill_day_of_month, now()) END AS next_refill_at,
       credits_spent_today(k.id)::float8 AS today,
       (COALESCE((SELECT sum(d.credits) FROM usage_daily d
                  WHERE d.key_id = k.id AND d.day >= date_trunc('month', now() AT TIME ZONE 'UTC')::date), 0)
        + COALESCE((SELECT sum(u.credits_charged) FROM usage_events u WHERE u.key_id = k.id AND u.status = 102), 0))::float8 AS month
     FROM api_keys k
     LEFT JOIN workspaces w ON w.id = k.pool_id
     LEFT JOIN workspace_members m ON m.workspace_id = k.pool_id AND m.user_id = k.owner_id
     WHERE k.id = ANY($1::text[]) AND k.id IN (SELECT id FROM usable_keys)`,
    [keyIds],
  );
  return new Map(rows.map((row) => [row.id, accountOf(row)]));
};

/** One key's figures, read fresh; null when the key is not (or no longer) usable. */
export const keyAccount = async (db: Queryable, keyId: string): Promise<AccountData["key"] | null> =>
  (await keyAccounts(db, [keyId])).get(keyId) ?? null;
