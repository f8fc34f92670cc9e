import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import type { KeyForecast } from "@/lib/query/usage";
import { describeDaysLeft } from "@/lib/usage/days-left";
import { formatCount, formatRate, formatTime } from "./format";
import { EmptyState } from "./skeleton";

const urgency = (daysLeft: number | null) => {
  if (daysLeft === null) return "neutral" as const;
  if (daysLeft < 3) return "danger" as const;
  if (daysLeft < 14) return "warning" as const;
  return "success" as const;
};

/** When each active key runs out at the last 7 days' rate, soonest first. */
export function ForecastTable({ keys, totalKeys }: { keys: KeyForecast[]; totalKeys: number }) {
  if (keys.length === 0) return <EmptyState testId="forecast-empty">No active keys in this scope.</EmptyState>;
  return (
    <div className="flex flex-col gap-2">
      <Table caption="Burn-rate forecast per key" data-testid="forecast-table">
        <TableHeaderRow
          columns={[
            "Key",
            { label: "Credits left", className: "text-right" },
            { label: "Credits / day", className: "text-right" },
            "Runs out",
            { label: "Actions", visuallyHidden: true },
          ]}
        />
        <TableBody>
          {keys.map((key) => (
            <TableRow key={key.keyId} data-testid={`forecast-row-${key.keyId}`}>
              <TableCell className="font-medium break-all">{key.keyName}</TableCell>
              <TableCell className="text-right tabular-nums">{formatCount(key.creditsRemaining)}</TableCell>
              <TableCell className="text-right tabular-nums">{key.creditsPerDay > 0 ? formatRate(key.creditsPerDay) : "—"}</TableCell>
              <TableCell>
                <div className="flex flex-col items-start gap-1">
                  <Badge variant={urgency(key.daysLeft)} data-testid="forecast-days-left">
                    {describeDaysLeft(key.daysLeft)}
                  </Badge>
                  {key.runsOutAt && key.daysLeft !== null && key.daysLeft > 0 ? (
                    <span className="text-xs text-muted">{formatTime(key.runsOutAt)}</span>
                  ) : null}
                  {key.nextRefillAt ? (
                    <span className="text-xs text-muted" data-testid="forecast-refill">
                      {key.runsOutBeforeRefill === true
                        ? `Runs out before the next refill (${formatTime(key.nextRefillAt)})`
                        : `Refilled ${formatTime(key.nextRefillAt)}${key.runsOutBeforeRefill === false ? ", before it runs out" : ""}`}
                    </span>
                  ) : null}
                </div>
              </TableCell>
              <TableCell className="text-right whitespace-nowrap">
                <Link
                  href={`/usage/keys/${encodeURIComponent(key.keyId)}`}
                  className="text-sm font-medium text-accent underline-offset-2 hover:underline"
                >
                  Alerts &amp; budget
                </Link>
              </TableCell>
            </TableRow>
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
