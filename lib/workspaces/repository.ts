import crypto from "node:crypto";
import type { Queryable } from "@/lib/db/client";
import { recordAudit, type Actor } from "@/lib/audit/log";
import type { WorkspaceRole } from "./roles";

/**
 * Workspace records (docs/teams.md): a user's personal workspace and the team workspaces they
 * create or join, with the team's credit pool and shared requests-per-second limit. No HTTP in
 * here; every change is audited in the same statement's transaction.
 */
export type Workspace = {
  id: string;
  name: string;
  /** A user's own workspace (one each, made with the account); false for a team workspace. */
  personal: boolean;
  /** The pool a team's keys draw from (a personal workspace's keys keep their own balances). */
  poolCredits: number;
  poolGranted: number;
  /** One requests-per-second limit shared by all the workspace's keys; null: none. */
  qpsLimit: number | null;
  createdAt: Date;
};

/** A workspace as one of its members sees it in the switcher: with their role. */
export type MemberWorkspace = Workspace & { role: WorkspaceRole };

export type WorkspaceRow = {
  id: string;
  name: string;
  personal_user_id: string | null;
  pool_credits: number | string;
  pool_granted: number | string;
  qps_limit: number | null;
  created_at: Date | string;
};

const COLUMNS = "w.id, w.name, w.personal_user_id, w.pool_credits, w.pool_granted, w.qps_limit, w.created_at";

export const toWorkspace = (row: WorkspaceRow): Workspace => ({
  id: row.id,
  name: row.name,
  personal: row.personal_user_id !== null,
  poolCredits: Number(row.pool_credits),
  poolGranted: Number(row.pool_granted),
  qpsLimit: row.qps_limit === null ? null : Number(row.qps_limit),
  createdAt: new Date(row.created_at),
});

export const newWorkspaceId = (): string => `wst_${crypto.randomBytes(9).toString("base64url")}`;

/** The id of a user's personal workspace (made for every user by 0020's trigger). */
export const personalWorkspaceId = (userId: string): string => `wsp_${userId}`;

export const getWorkspace = async (db: Queryable, id: string): Promise<Workspace | null> => {
  const rows = await db.query<WorkspaceRow>(`SELECT ${COLUMNS} FROM workspaces w WHERE w.id = $1 AND w.deleted_at IS NULL`, [id]);
  return rows[0] ? toWorkspace(rows[0]) : null;
};

/** The user's workspaces, their personal one first, then the teams by name. */
export const listMemberWorkspaces = async (db: Queryable, userId: string): Promise<MemberWorkspace[]> => {
  const rows = await db.query<WorkspaceRow & { role: WorkspaceRole }>(
    `SELECT ${COLUMNS}, m.role FROM workspaces w JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = $1
     ORDER BY (w.personal_user_id IS NULL), lower(w.name), w.id`,
    [userId],
  );
  return rows.map((row) => ({ ...toWorkspace(row), role: row.role }));
};

/** Every workspace (the service administrator's view), personal ones after the teams. */
export const listAllWorkspaces = async (db: Queryable): Promise<Workspace[]> =>
  (await db.query<WorkspaceRow>(`SELECT ${COLUMNS} FROM workspaces w WHERE w.deleted_at IS NULL ORDER BY (w.personal_user_id IS NOT NULL), lower(w.name), w.id`)).map(
    toWorkspace,
  );

/** A team workspace with its creator (or, from the operators' CLI, the user named) as owner. */
export const createTeamWorkspace = async (tx: Queryable, actor: Actor, name: string, ownerId: string | null = actor.id): Promise<Workspace> => {
  if (ownerId === null) throw new Error("a team workspace needs an owner");
  const rows = await tx.query<WorkspaceRow>(
    `INSERT INTO workspaces AS w (id, name) VALUES ($1, $2) RETURNING ${COLUMNS}`,
    [newWorkspaceId(), name],
  );
  const row = rows[0];
  if (!row) throw new Error("workspace insert returned no row");
  await tx.query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [row.id, ownerId]);
  await recordAudit(tx, actor, "workspace.create", { type: "workspace", id: row.id }, { name }, row.id);
  return toWorkspace(row);
};

export type WorkspaceSettings = { name?: string; qpsLimit?: number | null };

/** Renames the workspace or sets its shared limit; a field left out stays. */
export const updateWorkspaceSettings = async (
  tx: Queryable,
  actor: Actor,
  id: string,
  settings: WorkspaceSettings,
): Promise<Workspace | null> => {
  const rows = await tx.query<WorkspaceRow>(
    `UPDATE workspaces AS w SET name = CASE WHEN $2::boolean THEN $3::text ELSE name END,
       qps_limit = CASE WHEN $4::boolean THEN $5::integer ELSE qps_limit END
     WHERE w.id = $1 RETURNING ${COLUMNS}`,
    [id, settings.name !== undefined, settings.name ?? null, settings.qpsLimit !== undefined, settings.qpsLimit ?? null],
  );
  const row = rows[0];
  if (!row) return null;
  await recordAudit(tx, actor, "workspace.settings", { type: "workspace", id }, { ...settings }, id);
  return toWorkspace(row);
};

/**
 * Adds credits to a team's pool in one statement (pool and granted total together): no row back
 * means no such live team workspace. `from`: "grant" — the service administrator's (with the
 * reason they gave, when they gave one); "allowance" — moved from the actor's own allowance,
 * which the caller has already taken in the same transaction.
 */
export const addPoolCredits = async (
  tx: Queryable,
  actor: Actor,
  id: string,
  credits: number,
  from: "grant" | "allowance",
  reason: string | null = null,
): Promise<Workspace | null> => {
  const rows = await tx.query<WorkspaceRow>(
    `UPDATE workspaces AS w SET pool_credits = pool_credits + $2, pool_granted = pool_granted + $2
     WHERE w.id = $1 AND w.personal_user_id IS NULL AND w.deleted_at IS NULL RETURNING ${COLUMNS}`,
    [id, credits],
  );
  const row = rows[0];
  if (!row) return null;
  const details = { credits, from, ...(reason === null ? {} : { reason }), poolCredits: Number(row.pool_credits) };
  await recordAudit(tx, actor, "pool.credits", { type: "workspace", id }, details, id);
  return toWorkspace(row);
};

/** The ids of every key of a workspace (revoked ones too): whose cached credentials a settings change outdates. */
export const workspaceKeyIds = async (db: Queryable, workspaceId: string): Promise<string[]> =>
  (await db.query<{ id: string }>("SELECT id FROM api_keys WHERE workspace_id = $1", [workspaceId])).map((row) => row.id);
