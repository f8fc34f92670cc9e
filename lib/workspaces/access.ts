import type { Queryable } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import type { Role } from "@/lib/users/repository";
import { getWorkspace, type Workspace } from "./repository";
import { roleMay, type WorkspaceAction, type WorkspaceRole } from "./roles";

/**
 * The one gate of workspace data (docs/teams.md "Roles"): who is asking, in which workspace, for
 * what. A workspace the user is not in answers "not found" (its existence is not theirs to
 * learn); a member whose role may not do the action is refused; the service administrator may
 * do everything everywhere.
 */
export type Asker = { id: string; role: Role };

export type Membership = {
  workspace: Workspace;
  /** The asker's role in the workspace; null for a service administrator who is not a member. */
  role: WorkspaceRole | null;
  serviceAdmin: boolean;
};

/** What each action is, for the sentence a refused member reads. */
const ACTION_WORDS: Record<WorkspaceAction, string> = {
  "workspace.read": "see this workspace",
  "workspace.settings": "change this workspace's settings",
  "workspace.delete": "delete this workspace or transfer its ownership",
  "members.manage": "manage this workspace's members",
  "keys.own": "make keys in this workspace",
  "keys.manage": "manage every key of this workspace",
  "lookups.run": "run lookups with this workspace's credits",
  "batches.manage": "manage every batch of this workspace",
  "pool.fund": "add credits to this workspace's pool",
  "usage.read": "see this workspace's usage",
  "audit.read": "see this workspace's audit log",
};

export const workspaceNotFound = (): DomainError => new DomainError("not_found", "No such workspace.");

/** The asker's role in the workspace, or null when they are not a member. */
export const memberRole = async (db: Queryable, workspaceId: string, userId: string): Promise<WorkspaceRole | null> => {
  const rows = await db.query<{ role: WorkspaceRole }>("SELECT role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2", [
    workspaceId,
    userId,
  ]);
  return rows[0]?.role ?? null;
};

/** Whether this membership may do the action (the table of lib/workspaces/roles.ts decides). */
export const membershipMay = (membership: Pick<Membership, "role" | "serviceAdmin">, action: WorkspaceAction): boolean =>
  membership.serviceAdmin || (membership.role !== null && roleMay(membership.role, action));

/** The asker's membership of the workspace, or null when they are not a member (nor the service administrator). */
export const membershipOf = async (db: Queryable, asker: Asker, workspaceId: string): Promise<Membership | null> => {
  const workspace = await getWorkspace(db, workspaceId);
  if (!workspace) return null;
  const role = await memberRole(db, workspaceId, asker.id);
  const serviceAdmin = asker.role === "admin";
  if (role === null && !serviceAdmin) return null;
  return { workspace, role, serviceAdmin };
};

/**
 * The membership when the asker may do this action in the workspace; otherwise throws
 * not_found (not a member, or no such workspace) or forbidden (a role that may not).
 */
export const requireWorkspaceRole = async (db: Queryable, asker: Asker, workspaceId: string, action: WorkspaceAction): Promise<Membership> => {
  const membership = await membershipOf(db, asker, workspaceId);
  if (!membership) throw workspaceNotFound();
  if (!membershipMay(membership, action)) {
    throw new DomainError("forbidden", `Your role in this workspace (${membership.role ?? "none"}) cannot ${ACTION_WORDS[action]}.`);
  }
  return membership;
};
