import { Icon } from "@/components/ui/icon";

const numberFormat = new Intl.NumberFormat("en-US");

export type FollowersStatusProps = {
  loaded: number;
  pages: number;
  creditsSpent: number;
  hasNextPage: boolean;
  isFetching: boolean;
  /** Scrolling stopped to ask before buying more pages. */
  paused: boolean;
};

function Stat({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <div className="flex items-baseline gap-1.5">
      <dt className="text-muted">{label}</dt>
      <dd data-testid={testId} data-value={value} className="font-semibold text-foreground tabular-nums">
        {numberFormat.format(value)}
      </dd>
    </div>
  );
}

/**
 * The list's running totals: followers loaded, pages fetched, credits those pages cost (from each
 * answer's X-Credits-Charged), and whether the end has been reached.
 */
export function FollowersStatus({ loaded, pages, creditsSpent, hasNextPage, isFetching, paused }: FollowersStatusProps) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-x-6 gap-y-2 rounded-xl border border-border bg-surface-muted px-4 py-2.5 text-sm">
      <dl className="flex flex-wrap items-baseline gap-x-5 gap-y-1" aria-label="List totals">
        <Stat label="Loaded" value={loaded} testId="followers-loaded" />
        <Stat label="Pages" value={pages} testId="followers-pages" />
        <Stat label="Credits spent" value={creditsSpent} testId="followers-credits" />
      </dl>
      <p role="status" aria-live="polite" className="text-sm">
        {!hasNextPage ? (
          <span data-testid="followers-end" className="inline-flex items-center gap-1.5 font-semibold text-success">
            <Icon name="check" className="size-4" />
            {loaded === 0 ? "This user has no followers." : "End of list"}
          </span>
        ) : isFetching ? (
          <span className="text-muted">Loading…</span>
        ) : paused ? (
          <span className="text-muted">Paused — the end of the list asks before loading more</span>
        ) : (
          <span className="text-muted">More followers below — scroll to load</span>
        )}
      </p>
    </div>
  );
}
