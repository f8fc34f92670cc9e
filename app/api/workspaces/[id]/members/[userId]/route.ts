import { consoleRoute } from "@/lib/console-api/handler";
import { actorOf, memberPatchBody, memberView, removeMemberAndHandOver } from "@/lib/console-api/workspaces";
import { keysChanged } from "@/lib/keys/workspace-console";
import { authSecret } from "@/lib/security/secrets";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { changeMember } from "@/lib/workspaces/members";

export const dynamic = "force-dynamic";

/**
 * {role} and/or {monthlyBudgetCredits} (null: no budget). A workspace keeps at least one owner. A
 * role that may not run lookups suspends the member's keys here, and one that may restores them
 * (docs/teams.md): every instance forgets them at once.
 */
export const PATCH = consoleRoute({ body: memberPatchBody }, async ({ user, params, body, db, ip }) => {
  const change = await db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, params.id ?? "", "members.manage");
    return changeMember(tx, actorOf(user, ip), membership, params.userId ?? "", body);
  });
  keysChanged(change.keyIdsToForget);
  return { member: memberView(change.member) };
});

/**
 * Removes the member: the keys they made here are revoked at once, their open batches finish
 * under the workspace, their usage stays theirs (docs/teams.md "What removal does").
 */
export const DELETE = consoleRoute({}, async ({ user, params, db, ip }) => {
  const membership = await requireWorkspaceRole(db, user, params.id ?? "", "members.manage");
  const removal = await removeMemberAndHandOver(db, authSecret(), actorOf(user, ip), membership, params.userId ?? "");
  return { member: memberView(removal.member), revokedKeyIds: removal.revokedKeyIds, handedOverBatchIds: removal.openBatchIds };
});
