import { consoleRoute } from "@/lib/console-api/handler";
import { workspaceView } from "@/lib/console-api/workspaces";
import { principalOf } from "@/lib/keys/view";
import { switchWorkspace } from "@/lib/keys/workspace-console";
import { authSecret } from "@/lib/security/secrets";

export const dynamic = "force-dynamic";

/**
 * Makes the workspace the console's active one: lookups and batches run there with the user's
 * console key of that workspace (made on first need; none for a viewer).
 */
export const POST = consoleRoute({}, async ({ user, params, db, ip }) => {
  const switched = await switchWorkspace(db, authSecret(), principalOf(user, ip), params.id ?? "");
  return { workspace: workspaceView(switched.membership.workspace, switched.membership.role), consoleKeyId: switched.consoleKeyId };
});
