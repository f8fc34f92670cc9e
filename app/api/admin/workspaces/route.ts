import { consoleRoute } from "@/lib/console-api/handler";
import { adminWorkspaceView } from "@/lib/console-api/workspace-admin";
import { listWorkspaceDirectory } from "@/lib/workspaces/directory";

export const dynamic = "force-dynamic";

/** Every workspace, teams first, with its pool, members count, owners, refill and shared limit. */
export const GET = consoleRoute({ role: "admin" }, async ({ db }) => ({
  workspaces: (await listWorkspaceDirectory(db)).map(adminWorkspaceView),
}));
