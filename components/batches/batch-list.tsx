"use client";

import { useQuery } from "@tanstack/react-query";
import { formatDateTime } from "@/components/ui/date-time";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { batchListQuery } from "@/lib/query/batches";
import { cx } from "@/components/ui/class-names";
import { formatNumber, statusLabel, statusVariant } from "./format";

type Props = { selected: string | null; onSelect: (id: string) => void; operationLabel: (id: string) => string };

/** The analyst's batches, newest first, with their state; updated while any of them runs. */
export function BatchList({ selected, onSelect, operationLabel }: Props) {
  const list = useQuery(batchListQuery());
  return (
    <Card>
      <CardHeader>
        <CardTitle>Your batches</CardTitle>
      </CardHeader>
      <CardContent>
        {list.isPending ? <div className="h-20 animate-pulse rounded-lg bg-surface-muted" /> : null}
        {list.error ? <p role="alert" className="text-sm text-danger">{list.error.message}</p> : null}
        {list.data?.length === 0 ? <p className="text-sm text-muted">No batches yet.</p> : null}
        <ul className="flex flex-col gap-1" aria-label="Batches">
          {(list.data ?? []).map((batch) => (
            <li key={batch.id}>
              <button
                type="button"
                onClick={() => onSelect(batch.id)}
                aria-current={batch.id === selected ? "true" : undefined}
                className={cx(
                  "flex w-full flex-wrap items-center justify-between gap-2 rounded-lg px-3 py-2 text-left text-sm hover:bg-surface-muted",
                  batch.id === selected ? "bg-accent-soft" : "",
                )}
              >
                <span>
                  <span className="font-medium">{operationLabel(batch.operation)}</span> · {formatNumber(batch.done)}/{formatNumber(batch.total)} ·{" "}
                  {formatNumber(batch.creditsSpent)} credits
                  <time dateTime={batch.createdAt} className="ml-2 text-xs text-muted" data-testid="batch-created">
                    {formatDateTime(batch.createdAt)}
                  </time>
                </span>
                <Badge variant={statusVariant(batch.status)}>{statusLabel(batch)}</Badge>
              </button>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
