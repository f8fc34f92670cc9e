import type { Queryable } from "@/lib/db/client";

/**
 * What each member of a workspace has spent this calendar month (UTC) with the keys they made
 * there, pending reservations included — the figure their monthly budget is checked against
 * (member_credits_spent_this_month, the one the settlement and the meter read). Members who
 * spent nothing are 0, with or without a budget.
 */
export const memberSpendThisMonth = async (db: Queryable, workspaceId: string): Promise<Map<string, number>> => {
  const rows = await db.query<{ user_id: string; spent: number }>(
    `SELECT m.user_id, member_credits_spent_this_month(m.workspace_id, m.user_id)::float8 AS spent
     FROM workspace_members m WHERE m.workspace_id = $1`,
    [workspaceId],
  );
  return new Map(rows.map((row) => [row.user_id, Number(row.spent)]));
};
