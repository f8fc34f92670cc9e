import { consoleRoute } from "@/lib/console-api/handler";
import { memberView } from "@/lib/console-api/workspaces";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { memberSpendThisMonth } from "@/lib/usage/member-spend";
import { listMembers } from "@/lib/workspaces/members";

export const dynamic = "force-dynamic";

/**
 * The members, owners first, with their roles, monthly budgets and what each spent of the pool
 * this month (for every role: each may read the workspace's usage).
 */
export const GET = consoleRoute({}, async ({ user, params, db }) => {
  const membership = await requireWorkspaceRole(db, user, params.id ?? "", "workspace.read");
  const [members, spent] = await Promise.all([listMembers(db, membership.workspace.id), memberSpendThisMonth(db, membership.workspace.id)]);
  return { members: members.map((member) => memberView(member, spent.get(member.userId) ?? 0)) };
});
