import { infiniteQueryOptions, queryOptions, type QueryClient } from "@tanstack/react-query";
import type { GracePeriod } from "@/lib/keys/manage";
import type { ApiKeyView, AuditEntryView } from "@/lib/keys/view";
import { accountKeys } from "./account";
import { fetchJson, jsonRequest } from "./fetch-json";
import { refreshMeter } from "./meter";

/**
 * Browser access to the keys console API (/api/keys, /api/admin/audit): query option factories
 * and mutation helpers. Tokens only ever come back from `createKey` and `rollKey`; callers keep
 * them in component state for as long as they are shown, never in the query cache.
 */
export type { ApiKeyView, AuditEntryView, GracePeriod };

/** The viewer's own keys, every key (admins), or one workspace's keys (GET /api/keys?workspaceId=). */
export type KeyScope = "mine" | "all" | { workspaceId: string };

export type NewKeyInput = {
  name: string;
  credits: number;
  qpsLimit: number;
  /** ISO date-time in the future, or null for a key that does not expire. */
  expiresAt: string | null;
  useForConsole: boolean;
  /** A team workspace's key draws from its pool (credits 0); absent: the personal workspace. */
  workspaceId?: string;
  /** The key's own cap besides the pool: both, or neither. */
  capCredits?: number | null;
  capPeriod?: CapPeriod | null;
} & Partial<KeyPolicyInput>;

export type CapPeriod = "day" | "month" | "total";

/** What a key may call, from where, its refill and alert thresholds (PATCH /api/keys/:id). */
export type KeyPolicyInput = {
  operations: string[] | null;
  allowedAddresses: string[] | null;
  refill: ApiKeyView["refill"];
  alertThresholds: Array<{ credits: number } | { percent: number }>;
};

export type IssuedKey = { key: ApiKeyView; token: string };

export type AuditPage = { entries: AuditEntryView[]; nextBefore: number | null };

const AUDIT_PAGE_SIZE = 50;

export const keysQueryKey = ["keys"] as const;
const auditQueryKey = ["audit"] as const;

const keysPath = (scope: KeyScope): string =>
  typeof scope === "object" ? `/api/keys?workspaceId=${encodeURIComponent(scope.workspaceId)}` : scope === "all" ? "/api/keys?scope=all" : "/api/keys";

export const keysQuery = (scope: KeyScope = "mine") =>
  queryOptions({
    queryKey: [...keysQueryKey, typeof scope === "object" ? `workspace:${scope.workspaceId}` : scope],
    queryFn: async () => {
      const { keys } = await fetchJson<{ keys: ApiKeyView[] }>(keysPath(scope));
      return keys;
    },
    // Keys are used elsewhere (scripts, other tabs): coming back to the page shows their balance and last use.
    refetchOnWindowFocus: "always",
  });

/** The service's audit log (admins), or one workspace's (GET /api/workspaces/{id}/audit). */
export const auditQuery = (workspaceId?: string) =>
  infiniteQueryOptions({
    queryKey: [...auditQueryKey, workspaceId ?? "service"],
    queryFn: ({ pageParam }) => {
      const search = new URLSearchParams({ limit: String(AUDIT_PAGE_SIZE) });
      if (pageParam !== undefined) search.set("before", String(pageParam));
      const path = workspaceId === undefined ? "/api/admin/audit" : `/api/workspaces/${encodeURIComponent(workspaceId)}/audit`;
      return fetchJson<AuditPage>(`${path}?${search.toString()}`);
    },
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.nextBefore ?? undefined,
  });

const keyPath = (id: string) => `/api/keys/${encodeURIComponent(id)}`;

export const createKey = (input: NewKeyInput): Promise<IssuedKey> =>
  fetchJson<IssuedKey>("/api/keys", jsonRequest("POST", input));

export const updateKeyPolicy = async (id: string, input: KeyPolicyInput): Promise<ApiKeyView> =>
  (await fetchJson<{ key: ApiKeyView }>(keyPath(id), jsonRequest("PATCH", input))).key;

export const revokeKey = async (id: string): Promise<ApiKeyView> =>
  (await fetchJson<{ key: ApiKeyView }>(keyPath(id), jsonRequest("DELETE"))).key;

export const rollKey = (id: string, grace: GracePeriod): Promise<IssuedKey> =>
  fetchJson<IssuedKey>(`${keyPath(id)}/roll`, jsonRequest("POST", { grace }));

export const topUpKey = async (id: string, input: { credits: number; reason: string }): Promise<ApiKeyView> =>
  (await fetchJson<{ key: ApiKeyView }>(`${keyPath(id)}/credits`, jsonRequest("POST", input))).key;

/** `token` only for a key whose token the server does not hold yet (not `consoleCapable`). */
export const chooseConsoleKey = async (id: string, token?: string): Promise<ApiKeyView> => {
  const body = token ? { token } : {};
  return (await fetchJson<{ key: ApiKeyView }>(`${keyPath(id)}/console`, jsonRequest("POST", body))).key;
};

/**
 * After any key change: key lists (every scope), the audit log, the account (allowance, console
 * key) and the console's credit meter are stale.
 */
export const refreshAfterKeyChange = (queryClient: QueryClient): Promise<void> =>
  Promise.all([
    queryClient.invalidateQueries({ queryKey: keysQueryKey }),
    queryClient.invalidateQueries({ queryKey: auditQueryKey }),
    queryClient.invalidateQueries({ queryKey: accountKeys.me }),
    refreshMeter(queryClient),
  ]).then(() => undefined);
