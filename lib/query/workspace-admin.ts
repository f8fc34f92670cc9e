import { queryOptions, type QueryClient } from "@tanstack/react-query";
import type { AdminWorkspaceView } from "@/lib/console-api/workspace-admin";
import { fetchJson, jsonRequest } from "./fetch-json";
import { workspacesQueryKey } from "./workspaces";

/**
 * Browser access to the service administrator's workspace routes (Admin → Workspaces) and to the
 * settings routes an owner uses too: rename, shared limit, refill, transfer, delete.
 */
export type { AdminWorkspaceView };
export type PoolRefill = NonNullable<AdminWorkspaceView["refill"]>;

const adminWorkspacesKey = [...workspacesQueryKey, "admin"] as const;

const workspacePath = (id: string) => `/api/workspaces/${encodeURIComponent(id)}`;

export const adminWorkspacesQuery = () =>
  queryOptions({
    queryKey: adminWorkspacesKey,
    queryFn: async ({ signal }) => (await fetchJson<{ workspaces: AdminWorkspaceView[] }>("/api/admin/workspaces", { signal })).workspaces,
  });

/** The service administrator's grant; answers the workspace as the list shows it. */
export const grantPoolCredits = async (workspaceId: string, input: { credits: number; reason: string }): Promise<AdminWorkspaceView> =>
  (await fetchJson<{ workspace: AdminWorkspaceView }>(`/api/admin/workspaces/${encodeURIComponent(workspaceId)}/credits`, jsonRequest("POST", input))).workspace;

export type WorkspacePatch = { name?: string; qpsLimit?: number | null; refill?: PoolRefill | null };

export const updateWorkspace = (workspaceId: string, patch: WorkspacePatch): Promise<unknown> => fetchJson(workspacePath(workspaceId), jsonRequest("PATCH", patch));

export const transferWorkspace = (workspaceId: string, userId: string): Promise<unknown> =>
  fetchJson(`${workspacePath(workspaceId)}/transfer`, jsonRequest("POST", { userId }));

export const deleteWorkspace = (workspaceId: string): Promise<unknown> => fetchJson(workspacePath(workspaceId), jsonRequest("DELETE"));

/** After any workspace change: the lists (the switcher's and the admin's), members and meter read again. */
export const refreshWorkspaces = (client: QueryClient): Promise<void> => client.invalidateQueries();
