import { consoleRoute } from "@/lib/console-api/handler";
import { actorOf, invitationBody, invitationUrl, invitationView } from "@/lib/console-api/workspaces";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { createInvitation, listPendingInvitations } from "@/lib/workspaces/invitations";

export const dynamic = "force-dynamic";

/** Pending invitations (not accepted, revoked or expired), newest first; never their links. */
export const GET = consoleRoute({}, async ({ user, params, db }) => {
  const membership = await requireWorkspaceRole(db, user, params.id ?? "", "members.manage");
  return { invitations: (await listPendingInvitations(db, membership.workspace.id)).map(invitationView) };
});

/** Invites {email, role}: the answer's url is the only place the invitation's token ever appears. */
export const POST = consoleRoute({ body: invitationBody, status: 201 }, async ({ user, params, body, db, ip, request }) => {
  const created = await db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, params.id ?? "", "members.manage");
    return createInvitation(tx, actorOf(user, ip), membership, body);
  });
  return { invitation: { ...invitationView(created.invitation), url: invitationUrl(request, created.token) } };
});
