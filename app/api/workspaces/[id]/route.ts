import { consoleRoute } from "@/lib/console-api/handler";
import { actorOf, workspacePatchBody, workspaceView } from "@/lib/console-api/workspaces";
import { recordAudit } from "@/lib/audit/log";
import { DomainError } from "@/lib/errors";
import { setPoolRefill } from "@/lib/keys/refill";
import { keysChanged } from "@/lib/keys/workspace-console";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { deleteWorkspace } from "@/lib/workspaces/ownership";
import { updateWorkspaceSettings, workspaceKeyIds } from "@/lib/workspaces/repository";

export const dynamic = "force-dynamic";

export const GET = consoleRoute({}, async ({ user, params, db }) => {
  const membership = await requireWorkspaceRole(db, user, params.id ?? "", "workspace.read");
  return { workspace: workspaceView(membership.workspace, membership.role) };
});

/**
 * {name}, {qpsLimit}: the requests-per-second limit all its keys share (null: none), and {refill}:
 * the pool's automatic refill (the service administrator only; null: none).
 */
export const PATCH = consoleRoute({ body: workspacePatchBody }, async ({ user, params, body, db, ip }) => {
  const workspace = await db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, params.id ?? "", "workspace.settings");
    if (membership.workspace.personal && body.name !== undefined) {
      throw new DomainError("workspace_rule", "A personal workspace keeps its name.");
    }
    if (body.refill !== undefined) {
      // A refill adds credits each period: only the service administrator grants those.
      if (user.role !== "admin") throw new DomainError("forbidden", "Only the service administrator sets a pool's automatic refill.");
      if (membership.workspace.personal) throw new DomainError("workspace_rule", "A personal workspace has no pool to refill.");
      await setPoolRefill(tx, membership.workspace.id, body.refill);
      await recordAudit(tx, actorOf(user, ip), "workspace.settings", { type: "workspace", id: membership.workspace.id }, { refill: body.refill }, membership.workspace.id);
    }
    const { refill: _refill, ...settings } = body;
    const updated =
      settings.name === undefined && settings.qpsLimit === undefined
        ? membership.workspace
        : await updateWorkspaceSettings(tx, actorOf(user, ip), membership.workspace.id, settings);
    if (!updated) throw new DomainError("not_found", "No such workspace.");
    const keyIds = body.qpsLimit === undefined ? [] : await workspaceKeyIds(tx, membership.workspace.id);
    return { updated, role: membership.role, keyIds };
  });
  // Every instance forgets the keys' cached credentials, which carry the shared limit.
  keysChanged(workspace.keyIds);
  return { workspace: workspaceView(workspace.updated, workspace.role) };
});

/** Deletes a team workspace (owners): its keys revoked, its open batches canceled, its members removed. */
export const DELETE = consoleRoute({}, async ({ user, params, db, ip }) => {
  const deleted = await db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, params.id ?? "", "workspace.delete");
    return deleteWorkspace(tx, actorOf(user, ip), membership);
  });
  keysChanged(deleted.revokedKeyIds);
  return { deleted: true, ...deleted };
});
