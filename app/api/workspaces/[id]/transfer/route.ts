import { z } from "zod";
import { consoleRoute } from "@/lib/console-api/handler";
import { actorOf, workspaceView } from "@/lib/console-api/workspaces";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { transferOwnership } from "@/lib/workspaces/ownership";
import { getWorkspace } from "@/lib/workspaces/repository";

export const dynamic = "force-dynamic";

const transferBody = z.strictObject({ userId: z.string({ error: "Name the member who becomes owner (userId)." }).min(1).max(200) });

/** {userId}: that member becomes an owner, the caller an admin (docs/teams.md "Deleting and transferring"). */
export const POST = consoleRoute({ body: transferBody }, async ({ user, params, body, db, ip }) => {
  const workspace = await db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, params.id ?? "", "workspace.delete");
    await transferOwnership(tx, actorOf(user, ip), membership, body.userId);
    return getWorkspace(tx, membership.workspace.id);
  });
  return { workspace: workspace === null ? null : workspaceView(workspace, null) };
});
