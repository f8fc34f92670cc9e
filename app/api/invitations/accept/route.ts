import { openConsoleRoute } from "@/lib/console-api/handler";
import { acceptAs, acceptBody, workspaceView } from "@/lib/console-api/workspaces";

export const dynamic = "force-dynamic";

/**
 * {token}: the signed-in invitee joins. {token, password, name?} from a visitor whose address has
 * no account: the account is made with that password and joins (then the visitor signs in).
 */
export const POST = openConsoleRoute({ body: acceptBody }, async ({ user, body, db, ip }) => {
  const accepted = await acceptAs(db, user, ip, body);
  return { workspace: workspaceView(accepted.workspace, accepted.role), accountCreated: accepted.accountCreated };
});
