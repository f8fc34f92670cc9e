import type { WorkspaceRole } from "@/lib/workspaces/roles";

/** A role as people read it, and what it may do in a sentence (the Members page's invite form). */
export const roleLabels: Record<WorkspaceRole, string> = { owner: "Owner", admin: "Admin", analyst: "Analyst", viewer: "Viewer" };

export const roleSummaries: Record<WorkspaceRole, string> = {
  owner: "Everything, including deleting the workspace and transferring ownership.",
  admin: "Members, roles below owner, keys, pool top-ups and budgets.",
  analyst: "Lookups and batches with the pool's credits; their own keys within their caps.",
  viewer: "Usage, spending and the audit log; no lookups, no keys.",
};

/** The viewer's role in a workspace; the service administrator may be in one without a role. */
export const viewerRoleLabel = (role: WorkspaceRole | null): string => (role === null ? "Service admin" : roleLabels[role]);
