import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { actorOf, invitationView } from "@/lib/console-api/workspaces";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { revokeInvitation } from "@/lib/workspaces/invitations";

export const dynamic = "force-dynamic";

/** Revokes a pending invitation: its link stops working at once. */
export const DELETE = consoleRoute({}, async ({ user, params, db, ip }) => {
  const revoked = await db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, params.id ?? "", "members.manage");
    return revokeInvitation(tx, actorOf(user, ip), membership.workspace.id, params.invitationId ?? "");
  });
  if (!revoked) throw notFound("No such pending invitation.");
  return { invitation: invitationView(revoked) };
});
