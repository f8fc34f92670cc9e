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
  | "user.disable"
  | "user.enable"
  | "user.password"
  | "user.allowance"
  | "user.sessions"
  | "subject.suppress"
  | "subject.lift"
  | "subject.access";

/** What an entry is about: a key, a user, or a data subject ("<kind>:<subject>", lib/privacy). */
export type AuditTargetType = "key" | "user" | "subject";

export type Actor = { id: string | null; email: string; ip: string };

export type AuditEntry = {
  id: number;
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
): Promise<void> => {
  await db.query(
    `INSERT INTO audit_log (actor_id, actor_email, action, target_type, target_id, details, ip)
     VALUES ($1, $2, $3, $4, $5, $6::json, $7)`,
    [actor.id, actor.email, action, target.type, target.id, JSON.stringify(details), actor.ip],
  );
};

type AuditRow = {
  id: number | string;
  actor_email: string;
  action: AuditAction;
  target_type: AuditTargetType;
  target_id: string;
  details: Record<string, unknown> | string;
  ip: string;
  created_at: Date | string;
};

/** Newest first, keyset-paged by id. */
export const listAudit = async (db: Queryable, options: { beforeId?: number; limit: number }): Promise<AuditEntry[]> => {
  const rows = await db.query<AuditRow>(
    `SELECT id, actor_email, action, target_type, target_id, details, ip, created_at FROM audit_log
     WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2`,
    [options.beforeId ?? null, options.limit],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    actorEmail: row.actor_email,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: typeof row.details === "string" ? (JSON.parse(row.details) as Record<string, unknown>) : row.details,
    ip: row.ip,
    createdAt: new Date(row.created_at),
  }));
};
