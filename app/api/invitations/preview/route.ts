import { openConsoleRoute } from "@/lib/console-api/handler";
import { invitationSignUp, invitationTokenBody } from "@/lib/console-api/workspaces";
import { pendingInvitation } from "@/lib/workspaces/invitations";

export const dynamic = "force-dynamic";

/**
 * {token} → what the accept page shows before anyone joins: the workspace's name, the invited
 * address and role, when the link expires, and whether that address already has an account
 * (sign in) or not (set a password, where the service allows sign-up through invitations; else
 * wait for the administrator to make it). Only the token's holder learns it.
 */
export const POST = openConsoleRoute({ body: invitationTokenBody }, async ({ body, db }) => {
  const pending = await pendingInvitation(db, body.token);
  return {
    invitation: {
      workspaceName: pending.workspace.name,
      email: pending.invitation.email,
      role: pending.invitation.role,
      expiresAt: pending.invitation.expiresAt.toISOString(),
      hasAccount: pending.hasAccount,
      signUpOpen: invitationSignUp(),
    },
  };
});
