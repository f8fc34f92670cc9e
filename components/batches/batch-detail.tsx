"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Input } from "@/components/ui/input";
import { Badge } from "@/components/ui/badge";
import { Button, buttonStyles } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { batchInListQuery, batchItemsQuery, batchQuery, changeBatch, refreshBatches, resultsUrl, retryBatch, type BatchAction, type BatchView } from "@/lib/query/batches";
import { ConsoleApiError } from "@/lib/query/fetch-json";
import { refreshMeter } from "@/lib/query/meter";
import { formatEta, formatNumber, statusLabel, statusVariant } from "./format";
import { bindValue } from "@/components/ui/bind-value";

type Props = { id: string; operationLabel: (id: string) => string; onCreated: (id: string) => void };

const ACTIONS: { action: BatchAction; label: string; when: BatchView["status"][] }[] = [
  { action: "pause", label: "Pause", when: ["queued", "running"] },
  { action: "resume", label: "Resume", when: ["paused", "stopped"] },
  { action: "cancel", label: "Cancel", when: ["queued", "running", "paused", "stopped"] },
];

function Progress({ batch }: { batch: BatchView }) {
  const percent = batch.total === 0 ? 100 : Math.floor((batch.done / batch.total) * 100);
  return (
    <div className="flex flex-col gap-2">
      <div className="flex items-baseline justify-between text-sm">
        <span className="font-medium">
          {formatNumber(batch.done)} / {formatNumber(batch.total)} done
        </span>
        <span data-testid="batch-percent">{percent} %</span>
      </div>
      <div
        role="progressbar"
        aria-label="Batch progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="h-3 overflow-hidden rounded-full bg-surface-muted"
      >
        <div className="h-full bg-accent transition-[width]" style={{ width: `${percent}%` }} />
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-5">
        {[
          ["Succeeded", formatNumber(batch.succeeded)],
          ["Not found", formatNumber(batch.notFound)],
          ["Failed", formatNumber(batch.failed)],
          ["Credits", `${formatNumber(batch.creditsSpent)} of ${formatNumber(batch.maxCredits)}`],
          ["Time left", formatEta(batch.etaSeconds)],
        ].map(([term, value]) => (
          <div key={term} className="flex flex-col">
            <dt className="text-muted">{term}</dt>
            <dd className="font-medium" data-testid={`batch-${(term ?? "").toLowerCase().replace(/\s+/g, "-")}`}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** A batch while it runs and after: progress, controls, the results table and the downloads. */

const WEBHOOK_STATUS = { pending: "sending", delivered: "delivered", failed: "failed" } as const;

export function BatchDetail({ id, operationLabel, onCreated }: Props) {
  const client = useQueryClient();
  // The state shown (status, progress, controls) is the list's entry for this batch, the one the
  // list row shows; the batch's own query adds the webhook, and stands in only for a batch the
  // list does not hold.
  const listed = useQuery(batchInListQuery(id));
  const own = useQuery(batchQuery(id));
  const fromList = listed.data ?? undefined;
  const state = fromList ?? (listed.isPending ? undefined : own.data);
  const running = state?.status === "running" || state?.status === "queued";
  // The table follows the batch: each step of its progress (and its end) reads the rows again.
  const items = useQuery(batchItemsQuery(id, state));
  const act = useMutation({
    mutationFn: ({ action, maxCredits }: { action: BatchAction; maxCredits?: number }) => changeBatch(id, action, maxCredits),
    onSuccess: async () => {
      await refreshBatches(client);
    },
  });
  const retry = useMutation({
    mutationFn: () => retryBatch(id),
    onSuccess: async (created) => {
      await refreshBatches(client);
      onCreated(created.id);
    },
  });

  const [newCap, setNewCap] = useState("");
  const status = state?.status;
  // The console key's balance changed while the batch ran: the meter reads it again when it ends.
  useEffect(() => {
    if (status === "done" || status === "stopped") void refreshMeter(client);
  }, [status, client]);

  if (state === undefined) {
    const failure = listed.data === null || listed.isError ? own.error : null;
    if (failure) return <p role="alert" className="text-sm text-danger">{failure.message}</p>;
    return <div className="h-40 animate-pulse rounded-xl bg-surface-muted" />;
  }
  const view = { ...state, webhook: own.data?.webhook ?? state.webhook };
  const error = act.error ?? retry.error;

  return (
    <Card data-testid="batch-detail">
      <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-3">
        <CardTitle>
          {operationLabel(view.operation)} · {formatNumber(view.total)} inputs
        </CardTitle>
        <Badge variant={statusVariant(view.status)} data-testid="batch-status">
          {statusLabel(view)}
        </Badge>
      </CardHeader>
      <CardContent className="flex flex-col gap-5">
        <Progress batch={view} />
        <div className="flex flex-wrap gap-2">
          {ACTIONS.filter((entry) => entry.when.includes(view.status)).map((entry) => (
            <Button key={entry.action} variant={entry.action === "cancel" ? "danger" : "secondary"} size="sm" disabled={act.isPending} onClick={() => act.mutate({ action: entry.action })}>
              {entry.label}
            </Button>
          ))}
          <a className={buttonStyles({ variant: "secondary", size: "sm" })} href={resultsUrl(view.id, "csv")} download>
            Download CSV
          </a>
          <a className={buttonStyles({ variant: "secondary", size: "sm" })} href={resultsUrl(view.id, "ndjson")} download>
            Download NDJSON
          </a>
          {view.failed > 0 && !running ? (
            <Button variant="secondary" size="sm" disabled={retry.isPending} onClick={() => retry.mutate()}>
              Retry {formatNumber(view.failed)} failed as a new batch
            </Button>
          ) : null}
        </div>
        {view.status === "stopped" && view.stopReason === "cap" ? (
          <div className="flex flex-wrap items-end gap-2">
            <Input
              label="New cap (credits)"
              inputMode="numeric"
              {...bindValue(newCap, setNewCap)}
              hint={`The next lookup would have passed ${formatNumber(view.maxCredits)} credits; at most ${formatNumber(view.maxCostCredits)}.`}
              className="max-w-xs"
            />
            <Button
              size="sm"
              disabled={!/^\d+$/.test(newCap) || act.isPending}
              onClick={() => act.mutate({ action: "resume", maxCredits: Number(newCap) })}
            >
              Resume with this cap
            </Button>
          </div>
        ) : null}
        {view.webhook ? (
          <p className="text-sm text-muted" data-testid="batch-webhook">
            Completion webhook: {WEBHOOK_STATUS[view.webhook.status]}
            {view.webhook.lastStatus !== null ? ` (last answer HTTP ${view.webhook.lastStatus}` : " ("}
            {`${view.webhook.lastStatus !== null ? ", " : ""}${view.webhook.attempts} ${view.webhook.attempts === 1 ? "attempt" : "attempts"})`}
          </p>
        ) : null}
        {error ? (
          <p role="alert" className="text-sm text-danger">
            {error instanceof ConsoleApiError ? error.message : "That did not work. Try again."}
          </p>
        ) : null}
        <Table caption="Results per input">
          <TableHeaderRow columns={["#", "Input", "Page", "Status", "Record", "Credits"]} />
          <TableBody>
            {(items.data?.items ?? []).map((item) => (
              <TableRow key={`${item.position}-${item.page}`}>
                <TableCell>{item.position}</TableCell>
                <TableCell className="max-w-xs truncate font-mono text-xs" title={item.input}>
                  {item.input}
                </TableCell>
                <TableCell>{item.page}</TableCell>
                <TableCell>{item.httpStatus ?? (item.state === "in_flight" ? "running" : "pending")}</TableCell>
                <TableCell className="max-w-sm truncate" title={item.detail ?? ""}>
                  {item.detail ?? ""}
                </TableCell>
                <TableCell>{item.creditsCharged}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {items.data?.next ? <p className="text-xs text-muted">The first rows are shown; download the CSV for all of them.</p> : null}
      </CardContent>
    </Card>
  );
}
