import crypto from "node:crypto";
import type { Queryable } from "@/lib/db/client";
import { recordAudit, type Actor } from "@/lib/audit/log";
import { DomainError } from "@/lib/errors";
import { normaliseEmail } from "@/lib/users/repository";
import type { Membership } from "./access";
import { getWorkspace, type Workspace } from "./repository";
import { rolesGrantableBy, type WorkspaceRole } from "./roles";

/**
 * Invitations (docs/teams.md "Members"): a link shown once — only its token's SHA-256 is kept —,
 * good for one acceptance by the invited address within 7 days, revocable until then.
 */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3_600_000;

export type Invitation = {
  id: string;
  workspaceId: string;
  email: string;
  role: WorkspaceRole;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
};

type InvitationRow = {
  id: string;
  workspace_id: string;
  email: string;
  role: WorkspaceRole;
  invited_by: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  accepted_at: Date | string | null;
  revoked_at: Date | string | null;
};

const COLUMNS = "id, workspace_id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at";

const toInvitation = (row: InvitationRow): Invitation => ({
  id: row.id,
  workspaceId: row.workspace_id,
  email: row.email,
  role: row.role,
  invitedBy: row.invited_by,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

const hashOf = (token: string): Buffer => crypto.createHash("sha256").update(token).digest();

/** An invitation's secret: 256 random bits, recognisable by its prefix. */
const newToken = (): string => `inv_${crypto.randomBytes(32).toString("base64url")}`;

const TOKEN_SHAPE = /^inv_[A-Za-z0-9_-]{43}$/;

/** Invites an address; the token comes back here once and is never stored. */
export const createInvitation = async (
  tx: Queryable,
  actor: Actor,
  membership: Membership,
  input: { email: string; role: WorkspaceRole },
): Promise<{ invitation: Invitation; token: string }> => {
  const workspace = membership.workspace;
  if (workspace.personal) throw new DomainError("workspace_rule", "A personal workspace has no other members: create a team workspace to invite people.");
  const grantor = membership.serviceAdmin ? "service_admin" : (membership.role ?? "viewer");
  if (!rolesGrantableBy(grantor).includes(input.role)) {
    throw new DomainError("forbidden", `Your role cannot invite ${input.role === "owner" ? "an owner" : `a ${input.role}`}.`);
  }
  const email = normaliseEmail(input.email);
  const already = await tx.query<{ user_id: string }>(
    "SELECT m.user_id FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1 AND u.email = $2",
    [workspace.id, email],
  );
  if (already.length > 0) throw new DomainError("workspace_rule", `${email} is already a member of this workspace.`);
  const token = newToken();
  const rows = await tx.query<InvitationRow>(
    `INSERT INTO workspace_invitations (id, workspace_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::bigint / 1000.0)) RETURNING ${COLUMNS}`,
    [`inv_${crypto.randomBytes(9).toString("base64url")}`, workspace.id, email, input.role, hashOf(token), actor.id, INVITATION_LIFETIME_MS],
  );
  const row = rows[0];
  if (!row) throw new Error("invitation insert returned no row");
  await recordAudit(tx, actor, "member.invite", { type: "invitation", id: row.id }, { email, role: input.role }, workspace.id);
  return { invitation: toInvitation(row), token };
};

/** Invitations not yet accepted, revoked or expired, newest first. */
export const listPendingInvitations = async (db: Queryable, workspaceId: string): Promise<Invitation[]> =>
  (
    await db.query<InvitationRow>(
      `SELECT ${COLUMNS} FROM workspace_invitations
       WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND now() < expires_at ORDER BY created_at DESC, id`,
      [workspaceId],
    )
  ).map(toInvitation);

/** Revokes a pending invitation of this workspace; null when there is none such. */
export const revokeInvitation = async (tx: Queryable, actor: Actor, workspaceId: string, id: string): Promise<Invitation | null> => {
  const rows = await tx.query<InvitationRow>(
    `UPDATE workspace_invitations SET revoked_at = now()
     WHERE id = $1 AND workspace_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND now() < expires_at RETURNING ${COLUMNS}`,
    [id, workspaceId],
  );
  const row = rows[0];
  if (!row) return null;
  await recordAudit(tx, actor, "invitation.revoke", { type: "invitation", id }, { email: row.email, role: row.role }, workspaceId);
  return toInvitation(row);
};

const invalid = () =>
  new DomainError("invitation_invalid", "This invitation link is not valid: it may have expired, been used or been revoked. Ask for a new one.");

/** What the accept page shows before anyone signs in: the workspace, the address, the role. */
export type PendingInvitation = { invitation: Invitation; workspace: Workspace; hasAccount: boolean };

/**
 * The pending invitation of this token, locked until the transaction ends when `lock` (so one
 * acceptance wins), or throws invitation_invalid.
 */
export const pendingInvitation = async (db: Queryable, token: string, lock = false): Promise<PendingInvitation> => {
  if (!TOKEN_SHAPE.test(token)) throw invalid();
  const rows = await db.query<InvitationRow & { has_account: boolean }>(
    `SELECT ${COLUMNS}, EXISTS (SELECT 1 FROM users u WHERE u.email = workspace_invitations.email) AS has_account
     FROM workspace_invitations WHERE token_hash = $1 ${lock ? "FOR UPDATE" : ""}`,
    [hashOf(token)],
  );
  const row = rows[0];
  if (!row || row.accepted_at !== null || row.revoked_at !== null || new Date(row.expires_at).getTime() <= Date.now()) throw invalid();
  const workspace = await getWorkspace(db, row.workspace_id);
  if (!workspace) throw invalid();
  return { invitation: toInvitation(row), workspace, hasAccount: row.has_account };
};

/**
 * The invitee joins: the invitation (locked) must be pending and for their address. It is used
 * up by this acceptance; the member gets the role it names.
 */
export const acceptInvitation = async (tx: Queryable, actor: Actor & { id: string }, token: string): Promise<Workspace> => {
  const { invitation, workspace } = await pendingInvitation(tx, token, true);
  if (normaliseEmail(actor.email) !== invitation.email) {
    throw new DomainError("forbidden", `This invitation is for another e-mail address. Sign in as ${invitation.email} to accept it.`);
  }
  const joined = await tx.query<{ user_id: string }>(
    `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
    [workspace.id, actor.id, invitation.role],
  );
  if (joined.length === 0) throw new DomainError("workspace_rule", "You are already a member of this workspace.");
  await tx.query("UPDATE workspace_invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1", [invitation.id, actor.id]);
  await recordAudit(tx, actor, "member.join", { type: "user", id: actor.id }, { email: invitation.email, role: invitation.role, invitationId: invitation.id }, workspace.id);
  return workspace;
};
