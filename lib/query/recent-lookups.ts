import { queryOptions } from "@tanstack/react-query";
import type { RecentLookup } from "@/lib/usage/recent";
import { fetchJson } from "./fetch-json";

/** Recent lookups (GET /api/console/recent): successful lookups of the user's keys, newest first. */
export type { RecentLookup };

/** Every successful lookup makes these stale. */
export const recentLookupsKey = ["recent-lookups"] as const;

export const recentLookupsQuery = (operationIds: readonly string[], limit = 10) =>
  queryOptions({
    queryKey: [...recentLookupsKey, [...operationIds].sort().join(","), limit] as const,
    queryFn: async ({ signal }) => {
      const search = new URLSearchParams({ operations: operationIds.join(","), limit: String(limit) });
      return (await fetchJson<{ items: RecentLookup[] }>(`/api/console/recent?${search.toString()}`, { signal })).items;
    },
    staleTime: 30_000,
  });
