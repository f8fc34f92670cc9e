import { infiniteQueryOptions } from "@tanstack/react-query";
import type { FollowerEntry, FollowersData } from "@/lib/records/records";
import { followersOperation as followers } from "@/lib/operations/followers/descriptor";
import { acceptsParam } from "@/lib/records/param-rules";
import { fetchLookup, type LookupSuccess } from "./fetch-lookup";

/**
 * A pin-board user's followers as a cursor-based infinite query (docs/decisions.md "Parameters"): the first
 * page by `userid`, every next one by the first page's `node_id` + `cursor = end_cursor`.
 * Page size and cost are the operation's (lib/operations/followers/descriptor.ts) — so a page, once fetched, is never fetched again: no
 * staleness, no retries, no refetch on mount, focus or reconnect, and the list stays cached for
 * the whole session (an infinite query's refetch would re-buy every page it holds).
 */
export { FOLLOWERS_PAGE_SIZE } from "@/lib/operations/followers/descriptor";

export const followersPageCost = followers.costCredits;

export type FollowersPage = LookupSuccess<FollowersData>;

/** Where the next page starts; undefined for the first page (by `userid`). */
export type FollowersPageParam = { nodeId: string; cursor: string } | undefined;

export type { FollowerEntry };

/** A pin-board user id as /v1 accepts it (`userid`: digits, 1–20). */
export const isUserId = (value: string): boolean => acceptsParam("userid", value);

export const followersQueryKey = (userId: string) => ["followers", userId] as const;

export const followersQuery = (userId: string) =>
  infiniteQueryOptions({
    queryKey: followersQueryKey(userId),
    // No `signal`: aborting a request the server has already charged for would lose a paid page
    // and make the next attempt buy it again. A page in flight always lands in the cache.
    queryFn: ({ pageParam, client }): Promise<FollowersPage> =>
      fetchLookup<FollowersData>(
        followers,
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
