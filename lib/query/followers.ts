import { infiniteQueryOptions } from "@tanstack/react-query";
import type { FollowerEntry } from "@/lib/api/records";
import { runLookup, type LookupSuccess, type LookupData } from "./lookup";

/**
 * A pin-board user's followers as a cursor-based infinite query (decisions.md 4.3): the first
 * page by `userid`, every next one by the first page's `node_id` + `cursor = end_cursor`.
 * Page size 25, 2 credits a page — so a page, once fetched, is never fetched again: no
 * staleness, no retries, no refetch on mount, focus or reconnect, and the list stays cached for
 * the whole session (an infinite query's refetch would re-buy every page it holds).
 */
export const FOLLOWERS_PAGE_SIZE = 25;

export type FollowersPage = LookupSuccess<LookupData["followers"]>;

/** Where the next page starts; undefined for the first page (by `userid`). */
export type FollowersPageParam = { nodeId: string; cursor: string } | undefined;

export type { FollowerEntry };

/** A pin-board user id as /v1 accepts it (`userid`: digits, 1–20). */
export const isUserId = (value: string): boolean => /^\d{1,20}$/.test(value);

export const followersQueryKey = (userId: string) => ["followers", userId] as const;

export const followersQuery = (userId: string) =>
  infiniteQueryOptions({
    queryKey: followersQueryKey(userId),
    // No `signal`: aborting a request the server has already charged for would lose a paid page
    // and make the next attempt buy it again. A page in flight always lands in the cache.
    queryFn: ({ pageParam, client }): Promise<FollowersPage> =>
      runLookup(
        "followers",
        pageParam === undefined ? { userid: userId } : { node_id: pageParam.nodeId, cursor: pageParam.cursor },
        { client },
      ),
    initialPageParam: undefined as FollowersPageParam,
    getNextPageParam: (lastPage, allPages): FollowersPageParam => {
      const { has_next_page: hasNextPage, end_cursor: endCursor } = lastPage.data.page_info;
      if (!hasNextPage || !endCursor) return undefined;
      const nodeId = (allPages[0] ?? lastPage).data.node_id;
      return { nodeId, cursor: endCursor };
    },
    staleTime: Infinity,
    gcTime: Infinity,
    retry: false,
    retryOnMount: false,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
