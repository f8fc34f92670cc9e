"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { cx } from "@/components/ui/class-names";
import {
  eventInputFromRecent,
  eventInputValue,
  eventLookupCost,
  eventQuery,
  recentEventOperations,
  type EventInput,
} from "@/lib/query/events";
import { recentLookupsQuery } from "@/lib/query/recent-lookups";

/**
 * The user's recent successful event lookups (from the usage records) for one-click re-open.
 * Opening one shows the card from this session's cache when there is one (free); otherwise it
 * runs the lookup again, and says what that costs.
 */
export type RecentEventLookupsProps = {
  onOpen: (input: EventInput) => void;
  /** The input whose card is on screen, marked as current. */
  currentValue?: string;
  className?: string;
};

const RECENT_LIMIT = 10;

const relativeTime = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

const ago = (iso: string, now: number): string => {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const steps: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ["day", 86_400],
    ["hour", 3_600],
    ["minute", 60],
  ];
  for (const [unit, size] of steps) {
    if (Math.abs(seconds) >= size) return relativeTime.format(Math.round(seconds / size), unit);
  }
  return "just now";
};

/** "events.demo.test/events/1000000000000001/" for a URL, the id as is. */
const shortLabel = (input: EventInput): string =>
  input.by === "url" ? input.url.replace(/^https:\/\//, "") : input.eventId;

export function RecentEventLookups({ onOpen, currentValue, className }: RecentEventLookupsProps) {
  const queryClient = useQueryClient();
  const recent = useQuery(recentLookupsQuery(recentEventOperations, RECENT_LIMIT));
  const now = Date.now();

  const items = (recent.data ?? []).flatMap((item) => {
    const input = eventInputFromRecent(item);
    return input ? [{ item, input }] : [];
  });

  return (
    <section aria-labelledby="recent-lookups-heading" className={cx("flex min-w-0 flex-col gap-3", className)} data-testid="recent-lookups">
      <div className="flex flex-col gap-0.5">
        <h2 id="recent-lookups-heading" className="text-sm font-semibold">
          Recent lookups
        </h2>
        <p className="text-xs text-muted">Opening one again costs {eventLookupCost} credits, unless it is still cached here.</p>
      </div>
      {recent.isPending ? (
        <ul className="flex flex-col gap-2" aria-hidden="true">
          {[0, 1, 2].map((row) => (
            <li key={row} className="h-12 animate-pulse rounded-lg bg-surface-muted" />
          ))}
        </ul>
      ) : recent.isError ? (
        <p className="text-sm text-muted">Recent lookups could not be loaded.</p>
      ) : items.length === 0 ? (
        <p className="text-sm text-muted">No lookups yet. Successful event lookups appear here.</p>
      ) : (
        <ul className="flex flex-col gap-1.5">
          {items.map(({ item, input }) => {
            const value = eventInputValue(input);
            const cached = queryClient.getQueryData(eventQuery(input).queryKey);
            const title = cached?.data.event.title;
            const isCurrent = value === currentValue;
            const costLabel = cached ? "cached · free" : `${eventLookupCost} credits`;
            return (
              <li key={`${item.operation}:${value}`}>
                <button
                  type="button"
                  onClick={() => onOpen(input)}
                  aria-current={isCurrent ? "true" : undefined}
                  aria-label={`Open ${title ?? `event ${shortLabel(input)}`} — ${costLabel}`}
                  className={cx(
                    "flex w-full min-w-0 items-center justify-between gap-3 rounded-lg border px-3 py-2 text-left text-sm transition-colors",
                    "hover:bg-surface-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
                    isCurrent ? "border-accent/40 bg-accent-soft" : "border-border bg-surface",
                  )}
                  data-testid="recent-lookup"
                  data-value={value}
                >
                  <span className="flex min-w-0 flex-col">
                    <span className="truncate font-medium text-foreground">{title ?? shortLabel(input)}</span>
                    <span className="truncate text-xs text-muted">
                      {input.by === "url" ? "By URL" : "By id"} · {ago(item.at, now)}
                    </span>
                  </span>
                  <span
                    className={cx("shrink-0 text-xs tabular-nums", cached ? "text-success" : "text-muted")}
                    data-testid="recent-lookup-cost"
                  >
                    {costLabel}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
