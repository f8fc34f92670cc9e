import { consoleRoute } from "@/lib/console-api/handler";
import { memberView } from "@/lib/console-api/workspaces";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { listMembers } from "@/lib/workspaces/members";

export const dynamic = "force-dynamic";

/** The members, owners first, with their roles and monthly budgets. */
export const GET = consoleRoute({}, async ({ user, params, db }) => {
  const membership = await requireWorkspaceRole(db, user, params.id ?? "", "workspace.read");
  return { members: (await listMembers(db, membership.workspace.id)).map(memberView) };
});
