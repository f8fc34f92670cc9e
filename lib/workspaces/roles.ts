/**
 * Who may do what in a workspace (docs/teams.md "Roles"): one table of role × action, asked by
 * every console page and console API route that reads or changes workspace data. The service
 * administrator (a user whose account role is admin) may do everything in every workspace.
 */
export const WORKSPACE_ROLES = ["owner", "admin", "analyst", "viewer"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

export const WORKSPACE_ACTIONS = [
  /** See the workspace, its members, pool and settings. */
  "workspace.read",
  /** Rename it, set its shared requests-per-second limit, its pool's alerts and refills. */
  "workspace.settings",
  /** Delete the workspace, transfer ownership. */
  "workspace.delete",
  /** Invite, change roles (below owner, unless an owner does it), set budgets, remove members. */
  "members.manage",
  /** Make keys of one's own in the workspace, within the caps set for them; manage them. */
  "keys.own",
  /** Revoke or cap any key of the workspace, see who made each. */
  "keys.manage",
  /** Run lookups and batches in the console with the workspace's credits. */
  "lookups.run",
  /** See, pause, resume and cancel every batch of the workspace, whoever started it. */
  "batches.manage",
  /** Move credits from one's own allowance into the pool. */
  "pool.fund",
  /** Usage and spending: by key, by member, by operation; exports. */
  "usage.read",
  /** The audit log of membership, role, key, cap and pool changes. */
  "audit.read",
] as const;
export type WorkspaceAction = (typeof WORKSPACE_ACTIONS)[number];

const ALL: readonly WorkspaceAction[] = WORKSPACE_ACTIONS;

/** The table. A role not listed for an action may not do it. */
export const ROLE_ACTIONS: Readonly<Record<WorkspaceRole, readonly WorkspaceAction[]>> = {
  owner: ALL,
  admin: ["workspace.read", "workspace.settings", "members.manage", "keys.own", "keys.manage", "lookups.run", "batches.manage", "pool.fund", "usage.read", "audit.read"],
  analyst: ["workspace.read", "keys.own", "lookups.run", "usage.read"],
  viewer: ["workspace.read", "usage.read", "audit.read"],
};

/** Whether a member with this role may do this action. */
export const roleMay = (role: WorkspaceRole, action: WorkspaceAction): boolean => ROLE_ACTIONS[role].includes(action);

/** Roles an inviter or a role change may hand out: an owner any, an admin those below owner. */
export const rolesGrantableBy = (role: WorkspaceRole | "service_admin"): readonly WorkspaceRole[] =>
  role === "owner" || role === "service_admin" ? WORKSPACE_ROLES : role === "admin" ? ["admin", "analyst", "viewer"] : [];

export const isWorkspaceRole = (value: unknown): value is WorkspaceRole =>
  typeof value === "string" && (WORKSPACE_ROLES as readonly string[]).includes(value);
