import type { Queryable } from "@/lib/db/client";

/** Who changed which key or credits, when and from where. Written in the same transaction as the change. */
export type AuditAction =
  | "key.create"
  | "key.revoke"
  | "key.roll"
  | "key.credits"
  | "key.console"
  | "key.policy"
  | "key.refill"
  | "key.refill_stopped"
  | "user.create"
  | "user.reclaim"
  | "user.disable"
  | "user.enable"
  | "user.password"
  | "user.allowance"
  | "user.sessions"
  | "subject.suppress"
  | "subject.lift"
  | "subject.access"
  // Workspaces (docs/teams.md "Audit").
  | "workspace.create"
  | "workspace.settings"
  | "workspace.delete"
  | "workspace.transfer"
  | "member.invite"
  | "member.join"
  | "member.role"
  | "member.budget"
  | "member.remove"
  | "invitation.revoke"
  | "pool.credits"
  | "pool.refill"
  | "key.cap";

/** What an entry is about: a key, a user, or a data subject ("<kind>:<subject>", lib/privacy). */
export type AuditTargetType = "key" | "user" | "subject" | "workspace" | "invitation";

export type Actor = { id: string | null; email: string; ip: string };

export type AuditEntry = {
  id: number;
  /** The workspace the change belongs to; null for an account-wide or service-wide change. */
  workspaceId: string | null;
  actorEmail: string;
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string;
  details: Record<string, unknown>;
  ip: string;
  createdAt: Date;
};

export const recordAudit = async (
  db: Queryable,
  actor: Actor,
  action: AuditAction,
  target: { type: AuditTargetType; id: string },
  details: Record<string, unknown> = {},
  workspaceId: string | null = null,
): Promise<void> => {
  await db.query(
    `INSERT INTO audit_log (actor_id, actor_email, action, target_type, target_id, details, ip, workspace_id)
     VALUES ($1, $2, $3, $4, $5, $6::json, $7, $8)`,
    [actor.id, actor.email, action, target.type, target.id, JSON.stringify(details), actor.ip, workspaceId],
  );
};

type AuditRow = {
  id: number | string;
  workspace_id: string | null;
  actor_email: string;
  action: AuditAction;
  target_type: AuditTargetType;
  target_id: string;
  details: Record<string, unknown> | string;
  ip: string;
  created_at: Date | string;
};

/** Newest first, keyset-paged by id; only one workspace's entries when workspaceId is given. */
export const listAudit = async (
  db: Queryable,
  options: { beforeId?: number; limit: number; workspaceId?: string },
): Promise<AuditEntry[]> => {
  const rows = await db.query<AuditRow>(
    `SELECT id, workspace_id, actor_email, action, target_type, target_id, details, ip, created_at FROM audit_log
     WHERE ($1::bigint IS NULL OR id < $1) AND ($3::text IS NULL OR workspace_id = $3) ORDER BY id DESC LIMIT $2`,
    [options.beforeId ?? null, options.limit, options.workspaceId ?? null],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    workspaceId: row.workspace_id,
    actorEmail: row.actor_email,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: typeof row.details === "string" ? (JSON.parse(row.details) as Record<string, unknown>) : row.details,
    ip: row.ip,
    createdAt: new Date(row.created_at),
  }));
};
