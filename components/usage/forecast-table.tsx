import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import type { ForecastResult, KeyForecast, PoolForecast } from "@/lib/query/usage";
import { describeDaysLeft } from "@/lib/usage/days-left";
import { formatCount, formatRate, formatTime } from "./format";
import { EmptyState } from "./skeleton";

const urgency = (daysLeft: number | null) => {
  if (daysLeft === null) return "neutral" as const;
  if (daysLeft < 3) return "danger" as const;
  if (daysLeft < 14) return "warning" as const;
  return "success" as const;
};

type Figures = Omit<KeyForecast, "keyId" | "keyName">;

const actionLink = "text-sm font-medium text-accent underline-offset-2 hover:underline";

/** Credits left, the rate, and when it runs out (and whether a refill comes first). */
function FigureCells({ figures }: { figures: Figures }) {
  return (
    <>
      <TableCell className="text-right tabular-nums">{formatCount(figures.creditsRemaining)}</TableCell>
      <TableCell className="text-right tabular-nums">{figures.creditsPerDay > 0 ? formatRate(figures.creditsPerDay) : "—"}</TableCell>
      <TableCell>
        <div className="flex flex-col items-start gap-1">
          <Badge variant={urgency(figures.daysLeft)} data-testid="forecast-days-left">
            {describeDaysLeft(figures.daysLeft)}
          </Badge>
          {figures.runsOutAt && figures.daysLeft !== null && figures.daysLeft > 0 ? (
            <span className="text-xs text-muted">{formatTime(figures.runsOutAt)}</span>
          ) : null}
          {figures.nextRefillAt ? (
            <span className="text-xs text-muted" data-testid="forecast-refill">
              {figures.runsOutBeforeRefill === true
                ? `Runs out before the next refill (${formatTime(figures.nextRefillAt)})`
                : `Refilled ${formatTime(figures.nextRefillAt)}${figures.runsOutBeforeRefill === false ? ", before it runs out" : ""}`}
            </span>
          ) : null}
        </div>
      </TableCell>
    </>
  );
}

function PoolRow({ pool }: { pool: PoolForecast }) {
  return (
    <TableRow data-testid="forecast-pool-row" data-workspace-id={pool.workspaceId}>
      <TableCell>
        <span className="block font-medium break-all">Pool of {pool.workspaceName}</span>
        <span className="block text-xs text-muted">
          Shared by {formatCount(pool.keysInScope)} {pool.keysInScope === 1 ? "key" : "keys"} here; all its keys burn it
        </span>
      </TableCell>
      <FigureCells figures={pool} />
      <TableCell className="text-right whitespace-nowrap">
        <Link href="/workspace/members" className={actionLink}>
          Members &amp; budgets
        </Link>
      </TableCell>
    </TableRow>
  );
}

function KeyRow({ forecast }: { forecast: KeyForecast }) {
  return (
    <TableRow data-testid={`forecast-row-${forecast.keyId}`}>
      <TableCell className="font-medium break-all">{forecast.keyName}</TableCell>
      <FigureCells figures={forecast} />
      <TableCell className="text-right whitespace-nowrap">
        <Link href={`/usage/keys/${encodeURIComponent(forecast.keyId)}`} className={actionLink}>
          Alerts &amp; budget
        </Link>
      </TableCell>
    </TableRow>
  );
}

/**
 * When each credit holder runs out at the last 7 days' rate, soonest first: a team's pool once
 * (all the keys drawing from it run out together), then each key with a balance of its own.
 */
export function ForecastTable({ forecast }: { forecast: ForecastResult }) {
  const { keys, pools, totalKeys } = forecast;
  if (keys.length === 0 && pools.length === 0) return <EmptyState testId="forecast-empty">No active keys in this scope.</EmptyState>;
  return (
    <div className="flex flex-col gap-2">
      <Table caption="Burn-rate forecast per pool and key" data-testid="forecast-table">
        <TableHeaderRow
          columns={[
            "Pool or key",
            { label: "Credits left", className: "text-right" },
            { label: "Credits / day", className: "text-right" },
            "Runs out",
            { label: "Actions", visuallyHidden: true },
          ]}
        />
        <TableBody>
          {pools.map((pool) => (
            <PoolRow key={pool.workspaceId} pool={pool} />
          ))}
          {keys.map((key) => (
            <KeyRow key={key.keyId} forecast={key} />
          ))}
        </TableBody>
      </Table>
      {totalKeys > keys.length ? (
        <p className="text-xs text-muted">
          Showing the {keys.length} keys that run out soonest of {formatCount(totalKeys)}.
        </p>
      ) : null}
    </div>
  );
}
