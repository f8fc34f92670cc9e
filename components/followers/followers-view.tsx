"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState, type FormEvent } from "react";
import { followersPageCost, followersQuery, FOLLOWERS_PAGE_SIZE, isUserId, type FollowerEntry } from "@/lib/query/followers";
import { followerCsvColumns } from "./follower-export";
import { FollowerList, FOLLOWER_ROW_HEIGHT } from "./follower-list";
import { FollowersStatus } from "./followers-status";
import { LoadAllControl, type NextPageOutcome } from "./load-all-control";
import { LookupErrorPanel } from "@/components/lookup/lookup-error-panel";
import { LookupResultSection } from "@/components/lookup/lookup-result-section";
import { LookupSkeleton } from "@/components/lookup/lookup-skeleton";
import { PagedLookupPage } from "@/components/lookup/paged-lookup-page";
import { useLookupUrl, useRequestedSubjects } from "@/components/lookup/use-lookup-url";
import { submittedValue, useUrlField } from "@/components/lookup/use-url-field";

const PAGE_COST_CREDITS = followersPageCost;
/** Scrolling buys at most this many pages before the list asks whether to go on. */
export const PAUSE_EVERY_PAGES = 20;
const INPUT_PROBLEM = "Enter a user id: digits only (up to 20), e.g. 2000000001.";

const noFollowers: readonly FollowerEntry[] = [];

/**
 * The /followers page: a user id in, its followers as an infinite, virtualised list. The id
 * lives in the URL (`?userid=…`) so the page can be shared, but opening such a link never buys
 * a lookup by itself: the list shows at once only if this session already holds it, otherwise
 * the user presses Run.
 */
/** A user id from the URL is checked when the user presses Run, not before. */
const noProblem = (): null => null;

export function FollowersView() {
  const url = useLookupUrl();
  const queryClient = useQueryClient();
  const urlUserId = url.param("userid");

  const field = useUrlField(urlUserId, noProblem);
  // User ids the user asked to run in this visit; any other id only shows from the cache.
  const [requested, request] = useRequestedSubjects();
  const [loadAllRunning, setLoadAllRunning] = useState(false);
  // Per user id: the page count at which scrolling stops and asks. A list shown again from the
  // cache with more pages than that asks before its next page.
  const [pauseAtPages, setPauseAtPages] = useState<Readonly<Record<string, number>>>({});

  const urlUserIdValid = isUserId(urlUserId);
  const cached = urlUserIdValid && queryClient.getQueryData(followersQuery(urlUserId).queryKey) !== undefined;
  const activeUserId = urlUserIdValid && (cached || requested.has(urlUserId)) ? urlUserId : null;

  const {
    data,
    error,
    errorUpdatedAt,
    fetchNextPage,
    hasNextPage,
    isError,
    isFetching,
    isFetchingNextPage,
    isFetchNextPageError,
    isPending,
    refetch,
  } = useInfiniteQuery({ ...followersQuery(activeUserId ?? ""), enabled: activeUserId !== null });

  const followers = useMemo(() => data?.pages.flatMap((page) => page.data.followers) ?? noFollowers, [data]);
  const pagesFetched = data?.pages.length ?? 0;
  const creditsSpent = useMemo(() => data?.pages.reduce((sum, page) => sum + page.creditsCharged, 0) ?? 0, [data]);
  const pauseAt = (activeUserId === null ? undefined : pauseAtPages[activeUserId]) ?? PAUSE_EVERY_PAGES;
  const paused = hasNextPage && pagesFetched >= pauseAt;

  // One page at a time, and never a page already held: cancelRefetch false joins a fetch in flight
  // instead of cancelling it (a cancelled, already-charged request would be bought again).
  const loadMore = useCallback(() => {
    if (!hasNextPage || isFetching) return;
    void fetchNextPage({ cancelRefetch: false });
  }, [hasNextPage, isFetching, fetchNextPage]);

  const loadNextPage = useCallback(async (): Promise<NextPageOutcome> => {
    if (activeUserId === null) return { kind: "unchanged", hasNextPage: false };
    const pagesBefore = queryClient.getQueryData(followersQuery(activeUserId).queryKey)?.pages.length ?? 0;
    const result = await fetchNextPage({ cancelRefetch: false });
    const pages = result.data?.pages ?? [];
    const newest = pages.at(-1);
    if (pages.length > pagesBefore && newest) {
      return { kind: "loaded", creditsCharged: newest.creditsCharged, hasNextPage: result.hasNextPage };
    }
    if (result.isError) return { kind: "failed", error: result.error };
    return { kind: "unchanged", hasNextPage: result.hasNextPage };
  }, [activeUserId, fetchNextPage, queryClient]);

  const continuePaging = () => {
    if (activeUserId === null) return;
    setPauseAtPages((current) => ({ ...current, [activeUserId]: pagesFetched + PAUSE_EVERY_PAGES }));
    loadMore();
  };

  const retry = () => {
    if (data) loadMore();
    else void refetch();
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const userId = submittedValue(event, field, isUserId, INPUT_PROBLEM);
    if (userId === null) return;
    // A first page that failed earlier (429, 402 before a top-up, …) is asked for again: the
    // query is reset to "never fetched" (the factory does not retry on mount). A list with
    // pages is never refetched — Run just shows it.
    const { queryKey } = followersQuery(userId);
    const state = queryClient.getQueryState(queryKey);
    if (state?.status === "error" && state.data === undefined) void queryClient.resetQueries({ queryKey, exact: true });
    request(userId);
    if (userId !== urlUserId) url.push({ userid: userId });
  };

  const firstPageFailed = isError && !data;
  const showList = data !== undefined && followers.length > 0;

  return (
    <PagedLookupPage
      costCredits={PAGE_COST_CREDITS}
      onSubmit={onSubmit}
      looking={isPending && isFetching}
      testId="followers"
      field={field}
      name="userid"
      lookupError={error}
      subject="user"
      label="Pin-board user id"
      inputMode="numeric"
      placeholder="e.g. 2000000001"
      hint={`Each page of ${FOLLOWERS_PAGE_SIZE} followers costs ${PAGE_COST_CREDITS} credits. Pages loaded in this session are never bought twice.`}
    >
      {activeUserId === null && urlUserIdValid ? (
        <p className="rounded-xl border border-dashed border-border-strong px-4 py-6 text-center text-sm text-muted" data-testid="followers-idle">
          The followers of <span className="font-medium text-foreground">{urlUserId}</span> are not loaded in this session.
          Press Run to fetch the first {FOLLOWERS_PAGE_SIZE} ({PAGE_COST_CREDITS} credits).
        </p>
      ) : null}

      {firstPageFailed ? (
        <LookupErrorPanel error={error} subject="user" errorAt={errorUpdatedAt} onRetry={retry} retrying={isFetching} />
      ) : null}

      {activeUserId !== null && isPending && isFetching ? <ListSkeleton /> : null}

      {data !== undefined && activeUserId !== null ? (
        <LookupResultSection
          headingId="followers-heading"
          heading={`Followers of ${activeUserId}`}
          exportProps={{
            rows: () => followers.map((entry) => entry.node),
            rowCount: followers.length,
            csvColumns: followerCsvColumns,
            fileName: `followers-${activeUserId}`,
            noun: "followers",
          }}
        >
          <FollowersStatus
            loaded={followers.length}
            pages={pagesFetched}
            creditsSpent={creditsSpent}
            hasNextPage={hasNextPage}
            isFetching={isFetchingNextPage}
            paused={paused}
          />
          {isFetchNextPageError ? (
            <LookupErrorPanel error={error} subject="user" errorAt={errorUpdatedAt} onRetry={retry} retrying={isFetching} />
          ) : null}
          {/* Above the list, so it is in view without scrolling past the list's own scroll box. */}
          {showList ? (
            <LoadAllControl
              key={`load-all-${activeUserId}`}
              hasNextPage={hasNextPage}
              pageCostCredits={PAGE_COST_CREDITS}
              loadNextPage={loadNextPage}
              onRunningChange={setLoadAllRunning}
            />
          ) : null}
          {showList ? (
            <FollowerList
              key={`list-${activeUserId}`}
              followers={followers}
              userId={activeUserId}
              hasNextPage={hasNextPage}
              isFetchingNextPage={isFetchingNextPage}
              autoFetch={!isFetchNextPageError && !loadAllRunning && !paused}
              onLoadMore={loadMore}
              pageCostCredits={PAGE_COST_CREDITS}
              pause={paused ? { pages: pagesFetched, nextPages: PAUSE_EVERY_PAGES, onContinue: continuePaging } : null}
            />
          ) : null}
        </LookupResultSection>
      ) : null}
    </PagedLookupPage>
  );
}

/** Same box as the list, so nothing moves when the first page arrives. */
function ListSkeleton() {
  return (
    <LookupSkeleton loadingText="Loading followers…" headingWidth="w-56" toolbarHeight="h-11">
      <div className="h-[30rem] overflow-hidden rounded-xl border border-border bg-surface shadow-sm">
        {Array.from({ length: 7 }, (_, index) => (
          <div key={index} className="flex items-center gap-3 border-b border-border px-4" style={{ height: FOLLOWER_ROW_HEIGHT }}>
            <div className="size-10 animate-pulse rounded-full bg-surface-muted" />
            <div className="flex flex-1 flex-col gap-2">
              <div className="h-3 w-40 animate-pulse rounded bg-surface-muted" />
              <div className="h-2.5 w-24 animate-pulse rounded bg-surface-muted" />
            </div>
          </div>
        ))}
      </div>
    </LookupSkeleton>
  );
}
