import { consoleRoute } from "@/lib/console-api/handler";
import { actorOf, workspacePatchBody, workspaceView } from "@/lib/console-api/workspaces";
import { DomainError } from "@/lib/errors";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { updateWorkspaceSettings } from "@/lib/workspaces/repository";

export const dynamic = "force-dynamic";

export const GET = consoleRoute({}, async ({ user, params, db }) => {
  const membership = await requireWorkspaceRole(db, user, params.id ?? "", "workspace.read");
  return { workspace: workspaceView(membership.workspace, membership.role) };
});

/** {name} and/or {qpsLimit}: the requests-per-second limit all its keys share (null: none). */
export const PATCH = consoleRoute({ body: workspacePatchBody }, async ({ user, params, body, db, ip }) => {
  const workspace = await db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, params.id ?? "", "workspace.settings");
    if (membership.workspace.personal && body.name !== undefined) {
      throw new DomainError("workspace_rule", "A personal workspace keeps its name.");
    }
    const updated = await updateWorkspaceSettings(tx, actorOf(user, ip), membership.workspace.id, body);
    if (!updated) throw new DomainError("not_found", "No such workspace.");
    return { updated, role: membership.role };
  });
  return { workspace: workspaceView(workspace.updated, workspace.role) };
});
