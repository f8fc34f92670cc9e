import type { Queryable } from "@/lib/db/client";

/**
 * What the credit meter shows of a team workspace (docs/teams.md "The pool"): the pool's credits
 * left and granted, and the member's own monthly budget — spent this calendar month (UTC) by
 * the keys they made there, as settlement counts it (member_credits_spent_this_month), and left.
 */
export type PoolMeter = {
  workspace: { id: string; name: string; poolCredits: number; poolGranted: number };
  /** Null when the member has no monthly budget of their own. */
  budget: { monthlyCredits: number; spentCredits: number; leftCredits: number } | null;
};

type Row = { id: string; name: string; pool_credits: number; pool_granted: number; budget: number | null; spent: number };

/** The pool and the member's budget of a team workspace; null for a personal or unknown one. */
export const poolMeter = async (db: Queryable, workspaceId: string, userId: string): Promise<PoolMeter | null> => {
  const rows = await db.query<Row>(
    `SELECT w.id, w.name, w.pool_credits::float8 AS pool_credits, w.pool_granted::float8 AS pool_granted,
       m.monthly_budget_credits::float8 AS budget,
       CASE WHEN m.monthly_budget_credits IS NULL THEN 0 ELSE member_credits_spent_this_month(w.id, $2) END::float8 AS spent
     FROM workspaces w LEFT JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = $2
     WHERE w.id = $1 AND w.personal_user_id IS NULL`,
    [workspaceId, userId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    workspace: { id: row.id, name: row.name, poolCredits: row.pool_credits, poolGranted: row.pool_granted },
    budget:
      row.budget === null
        ? null
        : { monthlyCredits: row.budget, spentCredits: row.spent, leftCredits: Math.max(0, row.budget - row.spent) },
  };
};
