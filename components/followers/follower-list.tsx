"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";
import { FOLLOWERS_PAGE_SIZE, type FollowerEntry } from "@/lib/query/followers";
import { FollowerRow } from "./follower-row";

/** Row height in px: rows are exactly this tall (h-16), so no measuring is needed. */
export const FOLLOWER_ROW_HEIGHT = 64;
const OVERSCAN_ROWS = 10;
const PREFETCH_ROWS = 10;

export type FollowerListProps = {
  followers: readonly FollowerEntry[];
  /** For the region's accessible name. */
  userId: string;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  /**
   * Whether reaching the end may fetch the next page by itself. Off after a failed page (the
   * error panel offers Retry) and while "load all" drives the fetching.
   */
  autoFetch: boolean;
  /** Fetches the next page; the caller guards against double fetches. */
  onLoadMore: () => void;
  /** Cost of one page, for the manual "Load more" label. */
  pageCostCredits: number;
  /**
   * Scrolling has bought `pages` pages since the user last said yes: the end row asks before the
   * next `nextPages` and says what they cost. Null while scrolling may go on.
   */
  pause: { pages: number; nextPages: number; onContinue: () => void } | null;
};

const numberFormat = new Intl.NumberFormat("en-US");

/**
 * The follower list as a virtual window: only the rows in view plus an overscan are in the DOM,
 * whatever the list's length. One extra row at the end shows "loading", "load more" or "end of
 * list"; when it (or the rows just above it) comes into the window, the next page is fetched.
 */
export function FollowerList({
  followers,
  userId,
  hasNextPage,
  isFetchingNextPage,
  autoFetch,
  onLoadMore,
  pageCostCredits,
  pause,
}: FollowerListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const footerIndex = followers.length;
  const virtualizer = useVirtualizer({
    count: followers.length + 1,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => FOLLOWER_ROW_HEIGHT,
    overscan: OVERSCAN_ROWS,
    getItemKey: (index) => followers[index]?.node.entityId ?? "list-footer",
    // Plain batched updates: flushSync from a scroll handler warns under React 19 and buys nothing here.
    useFlushSync: false,
  });
  const items = virtualizer.getVirtualItems();
  // The last row actually in view (the overscan aside; `range` is current after getVirtualItems).
  const lastVisibleIndex = virtualizer.range?.endIndex ?? -1;

  // The reader is within PREFETCH_ROWS of the end: fetch the next page now, so a steady scroll
  // rarely meets the "loading" row. Keyed to the visible rows, not the rendered ones: the first
  // page plus overscan fills the window, and merely showing it must not buy a second page.
  const nearEnd = lastVisibleIndex >= footerIndex - PREFETCH_ROWS;
  useEffect(() => {
    if (nearEnd && autoFetch && hasNextPage && !isFetchingNextPage) onLoadMore();
  }, [nearEnd, autoFetch, hasNextPage, isFetchingNextPage, onLoadMore]);

  const setSize = hasNextPage ? -1 : followers.length;

  return (
    <div
      ref={scrollRef}
      data-testid="followers-scroll"
      role="region"
      aria-label={`Followers of user ${userId}`}
      tabIndex={0}
      className="h-[30rem] overflow-y-auto overscroll-contain rounded-xl border border-border bg-surface shadow-sm [overflow-anchor:none] focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring"
    >
      <ul className="relative w-full" style={{ height: virtualizer.getTotalSize() }} aria-busy={isFetchingNextPage}>
        {items.map((item) => {
          const entry = followers[item.index];
          if (entry) {
            return (
              <FollowerRow
                key={item.key}
                node={entry.node}
                position={item.index + 1}
                setSize={setSize}
                start={item.start}
                heightPx={item.size}
              />
            );
          }
          return (
            <li
              key={item.key}
              style={{ height: item.size, transform: `translateY(${item.start}px)` }}
              className="absolute top-0 left-0 flex w-full items-center justify-center gap-3 px-4 text-sm text-muted"
            >
              {!hasNextPage ? (
                <span className="font-medium">End of list · {numberFormat.format(followers.length)} followers</span>
              ) : isFetchingNextPage ? (
                <span role="status" className="flex items-center gap-2">
                  <Spinner />
                  Loading the next {FOLLOWERS_PAGE_SIZE} followers…
                </span>
              ) : pause ? (
                <span className="flex flex-wrap items-center justify-center gap-x-3 gap-y-1" data-testid="followers-paused">
                  <span>Paused after {numberFormat.format(pause.pages)} pages.</span>
                  <Button variant="secondary" size="sm" onClick={pause.onContinue} data-testid="followers-continue">
                    Load {pause.nextPages} more pages ({numberFormat.format(pause.nextPages * pageCostCredits)} credits)
                  </Button>
                </span>
              ) : (
                <Button variant="secondary" size="sm" onClick={onLoadMore}>
                  Load more · {pageCostCredits} credits
                </Button>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function Spinner() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-4 animate-spin text-accent" fill="none">
      <circle cx="12" cy="12" r="9" stroke="currentColor" strokeOpacity="0.25" strokeWidth="3" />
      <path d="M21 12a9 9 0 0 0-9-9" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}
