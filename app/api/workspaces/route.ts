import { consoleRoute } from "@/lib/console-api/handler";
import { actorOf, newWorkspaceBody, workspaceView } from "@/lib/console-api/workspaces";
import { createTeamWorkspace, listAllWorkspaces, listMemberWorkspaces } from "@/lib/workspaces/repository";
import { activeWorkspaceId } from "@/lib/workspaces/active";

export const dynamic = "force-dynamic";

/**
 * The viewer's workspaces (personal first) with their role and pool, and which is active; the
 * service administrator may ask for every workspace with ?scope=all.
 */
export const GET = consoleRoute({}, async ({ user, query, db }) => {
  const active = await activeWorkspaceId(db, user.id);
  if (query.get("scope") === "all" && user.role === "admin") {
    const mine = new Map((await listMemberWorkspaces(db, user.id)).map((workspace) => [workspace.id, workspace.role]));
    const every = await listAllWorkspaces(db);
    return { workspaces: every.map((workspace) => workspaceView(workspace, mine.get(workspace.id) ?? null)), activeWorkspaceId: active };
  }
  const workspaces = await listMemberWorkspaces(db, user.id);
  return { workspaces: workspaces.map((workspace) => workspaceView(workspace, workspace.role)), activeWorkspaceId: active };
});

/** A team workspace; its creator is its owner. */
export const POST = consoleRoute({ body: newWorkspaceBody, status: 201 }, async ({ user, body, db, ip }) => {
  const workspace = await db.transaction((tx) => createTeamWorkspace(tx, actorOf(user, ip), body.name));
  return { workspace: workspaceView(workspace, "owner") };
});
