import type { Queryable } from "@/lib/db/client";
import { recordAudit, type Actor } from "@/lib/audit/log";
import { DomainError } from "@/lib/errors";
import type { Membership } from "./access";

/**
 * What only an owner does (docs/teams.md "Deleting and transferring"): hand the workspace to
 * another member, and delete it. Both run inside the caller's transaction, after the gate
 * (workspace.delete) let the caller through.
 */

/**
 * Makes another member an owner and the caller an admin, at once: the workspace is never
 * without an owner, and never has the caller as owner after. The member rows are locked first,
 * as every member change locks them.
 */
export const transferOwnership = async (tx: Queryable, actor: Actor, membership: Membership, toUserId: string): Promise<void> => {
  const workspaceId = membership.workspace.id;
  if (membership.workspace.personal) throw new DomainError("workspace_rule", "A personal workspace stays its owner's.");
  const rows = await tx.query<{ user_id: string; role: string }>(
    "SELECT user_id, role FROM workspace_members WHERE workspace_id = $1 ORDER BY user_id FOR UPDATE",
    [workspaceId],
  );
  if (actor.id !== null && toUserId === actor.id) throw new DomainError("workspace_rule", "Name another member to hand the workspace to.");
  const target = rows.find((row) => row.user_id === toUserId);
  if (!target) throw new DomainError("not_found", "No such member of this workspace.");
  await tx.query("UPDATE workspace_members SET role = 'owner' WHERE workspace_id = $1 AND user_id = $2", [workspaceId, toUserId]);
  // The service administrator who is not a member hands it over without becoming anything.
  if (membership.role === "owner" && actor.id !== null) {
    await tx.query("UPDATE workspace_members SET role = 'admin' WHERE workspace_id = $1 AND user_id = $2", [workspaceId, actor.id]);
  }
  await recordAudit(tx, actor, "workspace.transfer", { type: "workspace", id: workspaceId }, { to: toUserId, previousRole: target.role }, workspaceId);
};

/**
 * Deletes a team workspace: every key of it is revoked (ids returned, for the caller to make
 * every instance forget them), its open batches are canceled, its pending invitations revoked,
 * its members removed, and no one works in it any more. The row stays, marked deleted, with its
 * usage and audit history; the pool's credits go with it. A personal workspace cannot be deleted.
 */
export const deleteWorkspace = async (tx: Queryable, actor: Actor, membership: Membership): Promise<{ revokedKeyIds: string[]; canceledBatchIds: string[] }> => {
  const workspace = membership.workspace;
  if (workspace.personal) throw new DomainError("workspace_rule", "A personal workspace cannot be deleted.");
  await tx.query("SELECT id FROM workspaces WHERE id = $1 FOR UPDATE", [workspace.id]);
  const keyIds = (await tx.query<{ id: string }>("SELECT id FROM api_keys WHERE workspace_id = $1 ORDER BY id FOR UPDATE", [workspace.id])).map(
    (row) => row.id,
  );
  const revokedKeyIds = (
    await tx.query<{ id: string }>(
      "UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = ANY($1::text[]) AND status = 'active' RETURNING id",
      [keyIds],
    )
  ).map((row) => row.id);
  await tx.query("DELETE FROM console_tokens WHERE key_id = ANY($1::text[])", [keyIds]);
  await tx.query("UPDATE users SET console_key_id = NULL WHERE console_key_id = ANY($1::text[])", [keyIds]);
  await tx.query("UPDATE users SET active_workspace_id = NULL WHERE active_workspace_id = $1", [workspace.id]);
  const canceledBatchIds = (
    await tx.query<{ id: string }>(
      `UPDATE batches SET status = 'canceled', finished_at = now(), ended_count = ended_count + 1, updated_at = now()
       WHERE workspace_id = $1 AND status IN ('queued', 'running', 'paused') RETURNING id`,
      [workspace.id],
    )
  ).map((row) => row.id);
  await tx.query("UPDATE workspace_invitations SET revoked_at = now() WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL", [
    workspace.id,
  ]);
  await tx.query("DELETE FROM workspace_members WHERE workspace_id = $1", [workspace.id]);
  await tx.query("UPDATE workspaces SET deleted_at = now(), refill_credits = NULL, refill_interval = NULL, refill_day_of_month = NULL, refill_mode = NULL WHERE id = $1", [
    workspace.id,
  ]);
  await recordAudit(
    tx,
    actor,
    "workspace.delete",
    { type: "workspace", id: workspace.id },
    { name: workspace.name, poolCredits: workspace.poolCredits, revokedKeyIds, canceledBatchIds },
    workspace.id,
  );
  return { revokedKeyIds, canceledBatchIds };
};
