import type { SummaryResponse } from "@/lib/query/usage";
import { cx } from "@/components/ui/class-names";
import { formatCount, formatPercent } from "./format";
import { Skeleton } from "./skeleton";

type Totals = SummaryResponse["totals"];

const tiles: { id: string; label: string; value: (totals: Totals) => string; hint?: (totals: Totals) => string }[] = [
  { id: "requests", label: "Requests", value: (totals) => formatCount(totals.requests) },
  { id: "successful", label: "Successful", value: (totals) => formatCount(totals.successful), hint: () => "status 200" },
  { id: "credits", label: "Credits spent", value: (totals) => formatCount(totals.credits) },
  {
    id: "error-rate",
    label: "Error rate",
    value: (totals) => formatPercent(totals.errorRate),
    hint: (totals) => `${formatCount(totals.failed)} failed`,
  },
  {
    id: "remaining",
    label: "Credits remaining",
    value: (totals) => formatCount(totals.creditsRemaining),
    hint: (totals) => `${formatCount(totals.activeKeys)} active key${totals.activeKeys === 1 ? "" : "s"}`,
  },
];

/** The five headline numbers of the period. */
export function UsageTotals({ totals }: { totals: Totals | undefined }) {
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5" data-testid="usage-totals">
      {tiles.map((tile) => (
        <div
          key={tile.id}
          className={cx("flex flex-col gap-1 rounded-xl border border-border bg-surface p-4 shadow-sm", tile.id === "remaining" && "col-span-2 sm:col-span-1")}
        >
          <dt className="text-xs font-medium tracking-wide text-muted uppercase">{tile.label}</dt>
          <dd className="flex flex-col gap-0.5">
            {totals ? (
              <>
                <span className="text-2xl font-semibold tracking-tight tabular-nums" data-testid={`total-${tile.id}`}>
                  {tile.value(totals)}
                </span>
                {tile.hint ? <span className="text-xs text-muted">{tile.hint(totals)}</span> : null}
              </>
            ) : (
              <Skeleton className="h-8 w-20" />
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
