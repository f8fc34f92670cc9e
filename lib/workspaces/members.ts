import type { Queryable } from "@/lib/db/client";
import { recordAudit, type Actor } from "@/lib/audit/log";
import { DomainError } from "@/lib/errors";
import type { Membership } from "./access";
import { rolesGrantableBy, type WorkspaceRole } from "./roles";

/**
 * A workspace's members (docs/teams.md "Members"): their roles and monthly budgets, and what
 * removing one does. A workspace always keeps at least one owner; only an owner (or the service
 * administrator) touches an owner. Each change locks the workspace's member rows first, so two
 * changes at once are decided one after the other (two owners demoting each other leave one).
 */
export type Member = {
  userId: string;
  email: string;
  name: string;
  role: WorkspaceRole;
  /** Credits this member's keys may spend from the pool per calendar month (UTC); null: no budget. */
  monthlyBudgetCredits: number | null;
  joinedAt: Date;
};

type MemberRow = {
  user_id: string;
  email: string;
  name: string;
  role: WorkspaceRole;
  monthly_budget_credits: number | string | null;
  joined_at: Date | string;
};

const toMember = (row: MemberRow): Member => ({
  userId: row.user_id,
  email: row.email,
  name: row.name,
  role: row.role,
  monthlyBudgetCredits: row.monthly_budget_credits === null ? null : Number(row.monthly_budget_credits),
  joinedAt: new Date(row.joined_at),
});

const ROLE_ORDER = "CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'analyst' THEN 2 ELSE 3 END";

export const listMembers = async (db: Queryable, workspaceId: string): Promise<Member[]> =>
  (
    await db.query<MemberRow>(
      `SELECT m.user_id, u.email, u.name, m.role, m.monthly_budget_credits, m.joined_at
       FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1
       ORDER BY ${ROLE_ORDER}, u.email`,
      [workspaceId],
    )
  ).map(toMember);

/** Locks the workspace's member rows and answers the one asked for (null: not a member). */
const lockMembers = async (tx: Queryable, workspaceId: string, userId: string): Promise<{ target: MemberRow | null; owners: number }> => {
  const rows = await tx.query<MemberRow>(
    `SELECT m.user_id, u.email, u.name, m.role, m.monthly_budget_credits, m.joined_at
     FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1 ORDER BY m.user_id FOR UPDATE OF m`,
    [workspaceId],
  );
  return { target: rows.find((row) => row.user_id === userId) ?? null, owners: rows.filter((row) => row.role === "owner").length };
};

const grantorOf = (membership: Membership): WorkspaceRole | "service_admin" =>
  membership.serviceAdmin ? "service_admin" : (membership.role ?? "viewer");

const memberNotFound = () => new DomainError("not_found", "No such member of this workspace.");

const lastOwner = (what: string) =>
  new DomainError("last_owner", `A workspace keeps at least one owner: make another member an owner before you ${what}.`);

/** Only an owner (or the service administrator) changes or removes an owner. */
const checkMayTouch = (membership: Membership, target: MemberRow): void => {
  if (target.role === "owner" && !rolesGrantableBy(grantorOf(membership)).includes("owner")) {
    throw new DomainError("forbidden", "Only an owner can change or remove an owner.");
  }
};

export type MemberPatch = { role?: WorkspaceRole; monthlyBudgetCredits?: number | null };

/** What a change left for the edge to finish: the member, and their keys here whose usability a role change decided anew. */
export type MemberChange = { member: Member; keyIdsToForget: string[] };

/**
 * A member's own budget is set by an owner (or the service administrator), never by themselves
 * below owner: an admin could otherwise clear the limit an owner put on them (docs/teams.md).
 */
const checkOwnBudget = (membership: Membership, actor: Actor, userId: string, patch: MemberPatch): void => {
  if (patch.monthlyBudgetCredits === undefined || actor.id !== userId) return;
  if (membership.serviceAdmin || membership.role === "owner") return;
  throw new DomainError("forbidden", "Only an owner can change your own monthly budget.");
};

export const changeMember = async (
  tx: Queryable,
  actor: Actor,
  membership: Membership,
  userId: string,
  patch: MemberPatch,
): Promise<MemberChange> => {
  const workspaceId = membership.workspace.id;
  const { target, owners } = await lockMembers(tx, workspaceId, userId);
  if (!target) throw memberNotFound();
  checkMayTouch(membership, target);
  checkOwnBudget(membership, actor, userId, patch);
  let keyIdsToForget: string[] = [];
  if (patch.role !== undefined && patch.role !== target.role) {
    if (!rolesGrantableBy(grantorOf(membership)).includes(patch.role)) {
      throw new DomainError("forbidden", `Your role cannot make a member ${patch.role === "owner" ? "an owner" : `a ${patch.role}`}.`);
    }
    if (target.role === "owner" && owners <= 1) throw lastOwner("change this one's role");
    await tx.query("UPDATE workspace_members SET role = $3 WHERE workspace_id = $1 AND user_id = $2", [workspaceId, userId, patch.role]);
    // Their keys here are suspended or restored with it (lib/keys/usable-keys.sql): every instance forgets them.
    keyIdsToForget = (
      await tx.query<{ id: string }>("SELECT id FROM api_keys WHERE workspace_id = $1 AND owner_id = $2 AND status = 'active' ORDER BY id", [
        workspaceId,
        userId,
      ])
    ).map((row) => row.id);
    await recordAudit(tx, actor, "member.role", { type: "user", id: userId }, { email: target.email, from: target.role, to: patch.role }, workspaceId);
  }
  if (patch.monthlyBudgetCredits !== undefined) {
    await tx.query("UPDATE workspace_members SET monthly_budget_credits = $3 WHERE workspace_id = $1 AND user_id = $2", [
      workspaceId,
      userId,
      patch.monthlyBudgetCredits,
    ]);
    await recordAudit(
      tx,
      actor,
      "member.budget",
      { type: "user", id: userId },
      { email: target.email, monthlyBudgetCredits: patch.monthlyBudgetCredits },
      workspaceId,
    );
  }
  const [updated] = (await listMembers(tx, workspaceId)).filter((member) => member.userId === userId);
  if (!updated) throw memberNotFound();
  return { member: updated, keyIdsToForget };
};

/**
 * Holds off the settlement of every key the member spends through in the workspace until the
 * transaction ends, taking the locks in the settlement's own order (keys, pools, members:
 * lock_for_settlement), so that what is read of their spend next includes every reservation made
 * before, and no reservation slips in between that read and what the transaction changes.
 */
export const lockMemberSpending = async (tx: Queryable, workspaceId: string, userId: string): Promise<void> => {
  await tx.query(
    `SELECT lock_for_settlement(ARRAY(
       SELECT k.id FROM api_keys k WHERE k.workspace_id = $1 AND COALESCE(k.owner_id, k.on_behalf_of) = $2 ORDER BY k.id
     )::text[])`,
    [workspaceId, userId],
  );
};

/** What is left this month of the member's monthly budget in the workspace; null: no budget. */
export const memberBudgetLeft = async (db: Queryable, workspaceId: string, userId: string): Promise<number | null> => {
  const rows = await db.query<{ left_credits: number | string | null }>(
    `SELECT CASE WHEN m.monthly_budget_credits IS NOT NULL
              THEN GREATEST(0, m.monthly_budget_credits - member_credits_spent_this_month(m.workspace_id, m.user_id)) END AS left_credits
     FROM workspace_members m WHERE m.workspace_id = $1 AND m.user_id = $2`,
    [workspaceId, userId],
  );
  const left = rows[0]?.left_credits;
  return left === undefined || left === null ? null : Number(left);
};

/** What a removal left for the edge to finish: the keys it revoked, the member's open batches. */
export type Removal = { member: Member; revokedKeyIds: string[]; openBatchIds: string[] };

/**
 * Removes a member (docs/teams.md "What removal does"): their membership, the keys they made in
 * the workspace (revoked, their sealed console tokens dropped), their console key and active
 * workspace if they were this workspace's. Their usage stays, attributed to them. Their open
 * batches are returned for the edge to hand to a key of the workspace, so they finish.
 */
export const removeMember = async (tx: Queryable, actor: Actor, membership: Membership, userId: string): Promise<Removal> => {
  const workspaceId = membership.workspace.id;
  const { target, owners } = await lockMembers(tx, workspaceId, userId);
  if (!target) throw memberNotFound();
  checkMayTouch(membership, target);
  if (target.role === "owner" && owners <= 1) throw lastOwner("remove this one");
  await tx.query("DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2", [workspaceId, userId]);
  const revoked = await tx.query<{ id: string }>(
    `UPDATE api_keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, now()), previous_token_hash = NULL, previous_token_expires_at = NULL
     WHERE workspace_id = $1 AND owner_id = $2 AND status = 'active' RETURNING id`,
    [workspaceId, userId],
  );
  const revokedKeyIds = revoked.map((row) => row.id).sort();
  await tx.query("DELETE FROM console_tokens WHERE key_id IN (SELECT id FROM api_keys WHERE workspace_id = $1 AND owner_id = $2)", [
    workspaceId,
    userId,
  ]);
  await tx.query(
    `UPDATE users SET
       console_key_id = CASE WHEN console_key_id IN (SELECT id FROM api_keys WHERE workspace_id = $1 AND owner_id = $2) THEN NULL ELSE console_key_id END,
       active_workspace_id = CASE WHEN active_workspace_id = $1 THEN NULL ELSE active_workspace_id END
     WHERE id = $2`,
    [workspaceId, userId],
  );
  const open = await tx.query<{ id: string }>(
    `SELECT id FROM batches WHERE workspace_id = $1 AND user_id = $2 AND status IN ('queued', 'running', 'paused') ORDER BY id FOR UPDATE`,
    [workspaceId, userId],
  );
  await recordAudit(tx, actor, "member.remove", { type: "user", id: userId }, { email: target.email, role: target.role, revokedKeyIds }, workspaceId);
  return { member: toMember(target), revokedKeyIds, openBatchIds: open.map((row) => row.id) };
};

/**
 * An account the service administrator reclaimed (docs/teams.md "Who makes accounts") leaves the
 * teams its invitations brought it into: whoever accepted them was not shown to be the address's
 * owner. A team it is the last owner of keeps it (a workspace always keeps an owner); it never
 * signed in, so it made no keys and started no batches.
 */
export const leaveTeamsOnReclaim = async (tx: Queryable, actor: Actor, userId: string): Promise<void> => {
  const left = await tx.query<{ workspace_id: string; role: WorkspaceRole }>(
    `DELETE FROM workspace_members m
     WHERE m.user_id = $1 AND m.workspace_id <> 'wsp_' || $1
       AND (m.role <> 'owner' OR EXISTS (
         SELECT 1 FROM workspace_members o WHERE o.workspace_id = m.workspace_id AND o.role = 'owner' AND o.user_id <> $1))
     RETURNING m.workspace_id, m.role`,
    [userId],
  );
  await tx.query("UPDATE users SET active_workspace_id = NULL, console_key_id = NULL WHERE id = $1", [userId]);
  for (const membership of left) {
    await recordAudit(tx, actor, "member.remove", { type: "user", id: userId }, { role: membership.role, reclaimed: true }, membership.workspace_id);
  }
};
