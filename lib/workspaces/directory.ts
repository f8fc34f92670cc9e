import type { Queryable } from "@/lib/db/client";
import { toWorkspace, type Workspace, type WorkspaceRow } from "./repository";

/**
 * The service administrator's list of every workspace (Admin → Workspaces): each with its pool,
 * how many members it has and who owns it, its automatic refill and its shared limit. One read;
 * the personal workspaces come after the teams.
 */
/** The pool's automatic refill as lib/keys/refill.ts sets it (that folder sits above this one). */
export type PoolRefill = {
  credits: number;
  interval: "daily" | "monthly";
  /** Monthly only: the day the period starts; null: the 1st. */
  dayOfMonth: number | null;
  mode: "top_up_to" | "increase_by";
};

export type DirectoryEntry = Workspace & {
  memberCount: number;
  ownerEmails: string[];
  refill: PoolRefill | null;
};

type DirectoryRow = WorkspaceRow & {
  refill_credits: number | string | null;
  refill_interval: PoolRefill["interval"] | null;
  refill_day_of_month: number | null;
  refill_mode: PoolRefill["mode"] | null;
  member_count: number | string;
  owner_emails: string[] | string | null;
};

const refillOf = (row: DirectoryRow): PoolRefill | null =>
  row.refill_credits === null || row.refill_interval === null || row.refill_mode === null
    ? null
    : { credits: Number(row.refill_credits), interval: row.refill_interval, dayOfMonth: row.refill_day_of_month, mode: row.refill_mode };

/** json_agg comes back parsed from pg and PGlite alike; a string is parsed here should a driver not. */
const emailsOf = (value: DirectoryRow["owner_emails"]): string[] => {
  if (value === null) return [];
  const list: unknown = typeof value === "string" ? JSON.parse(value) : value;
  return Array.isArray(list) ? list.filter((email): email is string => typeof email === "string") : [];
};

const toEntry = (row: DirectoryRow): DirectoryEntry => ({
  ...toWorkspace(row),
  memberCount: Number(row.member_count),
  ownerEmails: emailsOf(row.owner_emails),
  refill: refillOf(row),
});

const SELECT = `SELECT w.id, w.name, w.personal_user_id, w.pool_credits, w.pool_granted, w.qps_limit, w.created_at,
    w.refill_credits, w.refill_interval, w.refill_day_of_month, w.refill_mode,
    (SELECT count(*) FROM workspace_members m WHERE m.workspace_id = w.id) AS member_count,
    (SELECT json_agg(u.email ORDER BY u.email) FROM workspace_members m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = w.id AND m.role = 'owner') AS owner_emails
  FROM workspaces w WHERE w.deleted_at IS NULL`;

/** Every live workspace, teams first (by name), then the personal ones. */
export const listWorkspaceDirectory = async (db: Queryable): Promise<DirectoryEntry[]> =>
  (await db.query<DirectoryRow>(`${SELECT} ORDER BY (w.personal_user_id IS NOT NULL), lower(w.name), w.id`)).map(toEntry);

/** One live workspace as the directory shows it, or null. */
export const directoryEntry = async (db: Queryable, id: string): Promise<DirectoryEntry | null> => {
  const rows = await db.query<DirectoryRow>(`${SELECT} AND w.id = $1`, [id]);
  return rows[0] ? toEntry(rows[0]) : null;
};
