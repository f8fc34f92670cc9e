import { queryOptions, type QueryClient } from "@tanstack/react-query";
import type { WorkspaceRole } from "@/lib/workspaces/roles";
import { fetchJson, jsonRequest } from "./fetch-json";

/**
 * Browser access to the workspaces console API (/api/workspaces/*, /api/invitations/accept):
 * query option factories and mutations. An invitation's link only ever comes back from
 * `inviteMember`; callers keep it in component state while it is shown, never in the cache.
 */
export type { WorkspaceRole };

export type WorkspaceSummary = {
  id: string;
  name: string;
  personal: boolean;
  /** The viewer's role; null for the service administrator in a workspace they are not a member of. */
  role: WorkspaceRole | null;
  poolCredits: number;
  poolGranted: number;
  qpsLimit: number | null;
  createdAt: string;
};

/** activeWorkspaceId: the one console lookups, keys and usage act in. */
export type WorkspacesData = { workspaces: WorkspaceSummary[]; activeWorkspaceId: string };

export type Member = {
  userId: string;
  email: string;
  name: string;
  role: WorkspaceRole;
  monthlyBudgetCredits: number | null;
  /** Credits their keys spent from the pool this calendar month (UTC), when the API says. */
  spentThisMonthCredits?: number;
  joinedAt: string;
};

export type PendingInvitation = {
  id: string;
  email: string;
  role: WorkspaceRole;
  createdAt: string;
  expiresAt: string;
};

/** What the invitation page shows before anyone joins (POST /api/invitations/preview). */
export type InvitationPreview = { workspaceName: string; email: string; role: WorkspaceRole; expiresAt: string; hasAccount: boolean; signUpOpen: boolean };

export type IssuedInvitation = { id: string; url: string; expiresAt: string };

export const workspacesQueryKey = ["workspaces"] as const;

const workspacePath = (id: string) => `/api/workspaces/${encodeURIComponent(id)}`;

export const workspacesQuery = () =>
  queryOptions({
    queryKey: workspacesQueryKey,
    queryFn: ({ signal }) => fetchJson<WorkspacesData>("/api/workspaces", { signal }),
    staleTime: 30_000,
  });

/** The active workspace of the list (the personal one should the list not hold it). */
export const activeWorkspace = (data: WorkspacesData | undefined): WorkspaceSummary | undefined =>
  data?.workspaces.find((workspace) => workspace.id === data.activeWorkspaceId) ?? data?.workspaces.find((workspace) => workspace.personal);

export const membersQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: [...workspacesQueryKey, workspaceId, "members"],
    queryFn: async ({ signal }) => (await fetchJson<{ members: Member[] }>(`${workspacePath(workspaceId)}/members`, { signal })).members,
  });

export const invitationsQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: [...workspacesQueryKey, workspaceId, "invitations"],
    queryFn: async ({ signal }) =>
      (await fetchJson<{ invitations: PendingInvitation[] }>(`${workspacePath(workspaceId)}/invitations`, { signal })).invitations,
  });

export const createWorkspace = async (name: string): Promise<WorkspaceSummary> =>
  (await fetchJson<{ workspace: WorkspaceSummary }>("/api/workspaces", jsonRequest("POST", { name }))).workspace;

export const switchWorkspace = (id: string): Promise<unknown> => fetchJson(`${workspacePath(id)}/switch`, jsonRequest("POST", {}));

export const inviteMember = async (workspaceId: string, input: { email: string; role: WorkspaceRole }): Promise<IssuedInvitation> =>
  (await fetchJson<{ invitation: IssuedInvitation }>(`${workspacePath(workspaceId)}/invitations`, jsonRequest("POST", input))).invitation;

export const revokeInvitation = (workspaceId: string, invitationId: string): Promise<unknown> =>
  fetchJson(`${workspacePath(workspaceId)}/invitations/${encodeURIComponent(invitationId)}`, jsonRequest("DELETE"));

export const updateMember = (
  workspaceId: string,
  userId: string,
  input: { role?: WorkspaceRole; monthlyBudgetCredits?: number | null },
): Promise<unknown> => fetchJson(`${workspacePath(workspaceId)}/members/${encodeURIComponent(userId)}`, jsonRequest("PATCH", input));

export const removeMember = (workspaceId: string, userId: string): Promise<unknown> =>
  fetchJson(`${workspacePath(workspaceId)}/members/${encodeURIComponent(userId)}`, jsonRequest("DELETE"));

export const previewInvitation = async (token: string): Promise<InvitationPreview> =>
  (await fetchJson<{ invitation: InvitationPreview }>("/api/invitations/preview", jsonRequest("POST", { token }))).invitation;

export const acceptInvitation = (input: { token: string; password?: string; name?: string }): Promise<{ workspace: WorkspaceSummary; accountCreated: boolean }> =>
  fetchJson<{ workspace: WorkspaceSummary; accountCreated: boolean }>("/api/invitations/accept", jsonRequest("POST", input));

/** After a switch every console read (keys, usage, meter, batches) belongs to another workspace. */
export const refreshAfterSwitch = (client: QueryClient): Promise<void> => client.invalidateQueries();

/** After a membership change: the workspace list, members, invitations and audit are stale. */
export const refreshWorkspace = (client: QueryClient): Promise<void> => client.invalidateQueries({ queryKey: workspacesQueryKey });
