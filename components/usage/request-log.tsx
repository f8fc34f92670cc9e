"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Button, buttonStyles } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { bindValue } from "@/components/ui/bind-value";
import { controlClass, Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-alert";
import { TruncatedText } from "@/components/ui/truncated-text";
import { LoadError } from "@/components/ui/load-error";
import { errorMessage } from "@/components/keys/format";
import {
  eventsExportUrl,
  usageEventsQuery,
  type DayRangeParams,
  type LogFilterParams,
  type UsageEvent,
  type UsageScopeParams,
} from "@/lib/query/usage";
import { formatCount, formatLogTime, operationLabel, operationLabels } from "./format";
import { EmptyState, Skeleton } from "./skeleton";

export type LogKeyOption = { id: string; name: string };

type SelectOption = { value: string; label: string };

const OPERATION_OPTIONS: readonly SelectOption[] = [
  { value: "", label: "Any operation" },
  ...[...operationLabels].map(([name, label]) => ({ value: name, label })),
];

/** The statuses the log may be filtered on, each said after its code. */
const STATUS_TEXT: ReadonlyArray<readonly [status: number, text: string]> = [
  [200, "OK"],
  [400, "Bad request"],
  [402, "Out of credits"],
  [403, "Not allowed"],
  [404, "Not found"],
  [429, "Rate limited"],
  [499, "Client closed"],
  [500, "Server error"],
];

const STATUS_OPTIONS: readonly SelectOption[] = [
  { value: "", label: "Any status" },
  { value: "2xx", label: "Successful (2xx)" },
  { value: "4xx", label: "Client errors (4xx)" },
  { value: "5xx", label: "Server errors (5xx)" },
  ...STATUS_TEXT.map(([status, text]) => ({ value: String(status), label: `${status} ${text}` })),
];

/** Where requests came in (usage_events.channel). */
const CHANNEL_LABELS: Readonly<Record<string, string>> = { api: "API", console: "Console", batch: "Batch", mcp: "MCP" };

const CHANNEL_OPTIONS: readonly SelectOption[] = [
  { value: "", label: "Any channel" },
  ...Object.entries(CHANNEL_LABELS).map(([value, label]) => ({ value, label })),
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const statusVariant = (status: number): BadgeVariant => (status < 300 ? "success" : status < 500 ? "warning" : "danger");

const reasonText: Record<string, string> = {
  credits: "out of credits",
  daily_cap: "daily cap reached",
  refunded: "refunded",
  abandoned: "abandoned",
  client_closed: "client closed the connection",
};

/** A `datetime-local` value (browser time zone) as ISO-8601 UTC, or undefined when empty. */
const toIso = (local: string): string | undefined => {
  if (local === "") return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
};

type Draft = { keyId: string; operation: string; status: string; channel: string; from: string; to: string; requestId: string };
const emptyDraft: Draft = { keyId: "", operation: "", status: "", channel: "", from: "", to: "", requestId: "" };

function LogRow({ event }: { event: UsageEvent }) {
  return (
    <TableRow data-testid="log-row" data-request-id={event.requestId} data-status={event.status}>
      <TableCell className="whitespace-nowrap">
        <time dateTime={event.createdAt} title={event.createdAt} className="block">
          {formatLogTime(event.createdAt)}
        </time>
        <code className="font-mono text-xs text-muted" title={event.requestId} data-testid="log-request-id">
          {event.requestId.slice(0, 13)}…
        </code>
      </TableCell>
      <TableCell className="max-w-36">
        <TruncatedText text={event.keyName} />
      </TableCell>
      <TableCell className="max-w-56" data-testid="log-operation" data-operation={event.operation}>
        <span className="block whitespace-nowrap">
          {operationLabel(event.operation)}
          <span className="ml-1.5 text-xs text-muted" data-testid="log-channel" data-channel={event.channel}>
            {CHANNEL_LABELS[event.channel] ?? event.channel}
          </span>
        </span>
        <TruncatedText text={event.paramsSummary || "—"} title={event.paramsSummary} className="font-mono text-xs text-muted" data-testid="log-params" />
      </TableCell>
      <TableCell className="whitespace-nowrap">
        <div className="flex flex-col items-start gap-0.5">
          <Badge variant={statusVariant(event.status)} data-testid="log-status" data-requests={event.requests}>
            {event.requests > 1 ? `${formatCount(event.requests)} × ${event.status}` : event.status}
          </Badge>
          {event.reason ? <span className="text-xs text-muted">{reasonText[event.reason] ?? event.reason}</span> : null}
        </div>
      </TableCell>
      <TableCell className="text-right tabular-nums" data-testid="log-credits">
        {formatCount(event.creditsCharged)}
      </TableCell>
      <TableCell className="text-right whitespace-nowrap tabular-nums">{formatCount(event.latencyMs)} ms</TableCell>
    </TableRow>
  );
}

/**
 * The request log of the page's scope: newest first, filterable, 50 rows at a time ("Load more"
 * asks for the next keyset page). Without a time range of its own it shows the page's days.
 */
export function RequestLog({ scope, range, keys }: { scope: UsageScopeParams; range: DayRangeParams; keys: LogKeyOption[] }) {
  const formId = useId();
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [applied, setApplied] = useState<Draft>(emptyDraft);
  const [draftError, setDraftError] = useState<string | null>(null);

  const filters: LogFilterParams = {
    keyId: applied.keyId || undefined,
    operation: applied.operation || undefined,
    status: applied.status || undefined,
    channel: applied.channel || undefined,
    from: toIso(applied.from) ?? range.from,
    to: toIso(applied.to) ?? range.to,
    requestId: applied.requestId || undefined,
  };
  const log = useInfiniteQuery(usageEventsQuery(scope, filters));
  const events = (log.data?.pages ?? []).flatMap((page) => page.events);

  const apply = (next: Draft) => {
    const requestId = next.requestId.trim();
    if (requestId !== "" && !UUID.test(requestId)) {
      setDraftError("A request id looks like 5b0f3c1e-7a2d-4e8b-9c61-0d2f4a7e9b13 (copy it from the X-Request-Id header).");
      return;
    }
    const from = toIso(next.from);
    const to = toIso(next.to);
    if (from && to && from > to) {
      setDraftError("The start of the time range must be before its end.");
      return;
    }
    setDraftError(null);
    setApplied({ ...next, requestId });
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    apply(draft);
  };
  const update = (field: keyof Draft, immediate = false) => (value: string) => {
    const next = { ...draft, [field]: value };
    setDraft(next);
    // Choices apply at once; typed fields (times, request id) on "Apply".
    if (immediate) apply(next);
  };
  const filtered = Object.values(applied).some((value) => value !== "");
  // The choices apply as soon as they change; each is `<formId>-<name>`, test id `log-filter-<name>`.
  const choiceFilters: Array<{ name: string; field: keyof Draft; label: string; options: readonly SelectOption[] }> = [
    { name: "key", field: "keyId", label: "Key", options: [{ value: "", label: "All keys in scope" }, ...keys.map((key) => ({ value: key.id, label: key.name }))] },
    { name: "operation", field: "operation", label: "Operation", options: OPERATION_OPTIONS },
    { name: "status", field: "status", label: "Status", options: STATUS_OPTIONS },
    { name: "channel", field: "channel", label: "Channel", options: CHANNEL_OPTIONS },
  ];

  return (
    <div className="flex flex-col gap-4">
      <form
        id={formId}
        noValidate
        onSubmit={onSubmit}
        className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-3"
        data-testid="log-filters"
        aria-label="Filter the request log"
      >
        {choiceFilters.map(({ name, field, label, options }) => (
          <Field key={name} label={label} htmlFor={`${formId}-${name}`} className="min-w-0">
            <select id={`${formId}-${name}`} className={controlClass} {...bindValue(draft[field], update(field, true))} data-testid={`log-filter-${name}`}>
              {options.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </Field>
        ))}
        <Field label="From (your time)" htmlFor={`${formId}-from`} className="min-w-0">
          <input id={`${formId}-from`} type="datetime-local" step="1" className={controlClass} value={draft.from} onChange={(event) => update("from")(event.target.value)} data-testid="log-filter-from" />
        </Field>
        <Field label="To (your time)" htmlFor={`${formId}-to`} className="min-w-0">
          <input id={`${formId}-to`} type="datetime-local" step="1" className={controlClass} value={draft.to} onChange={(event) => update("to")(event.target.value)} data-testid="log-filter-to" />
        </Field>
        <Field label="Request id" htmlFor={`${formId}-request`} className="min-w-0">
          <input
            id={`${formId}-request`}
            type="search"
            inputMode="text"
            autoComplete="off"
            spellCheck={false}
            placeholder="exact id"
            className={controlClass}
            value={draft.requestId}
            onChange={(event) => update("requestId")(event.target.value)}
            data-testid="log-filter-request-id"
          />
        </Field>
        <div className="flex flex-wrap items-center gap-2 sm:col-span-2 xl:col-span-3">
          <Button type="submit" variant="secondary" size="sm" data-testid="log-apply">
            Apply filters
          </Button>
          {filtered ? (
            <Button
              variant="ghost"
              size="sm"
              onClick={() => {
                setDraft(emptyDraft);
                apply(emptyDraft);
              }}
            >
              Clear
            </Button>
          ) : null}
          <a
            href={eventsExportUrl(scope, filters)}
            download
            className={buttonStyles({ variant: "secondary", size: "sm", className: "ml-auto" })}
            data-testid="download-events-csv"
          >
            Download log (CSV)
          </a>
        </div>
        <div className="sm:col-span-2 xl:col-span-3 empty:hidden">
          <FormError message={draftError} testId="log-filter-error" />
        </div>
      </form>

      {log.isPending ? (
        <div className="flex flex-col gap-2" role="status" aria-label="Loading the request log">
          {Array.from({ length: 5 }, (_, index) => (
            <Skeleton key={index} className="h-10 w-full" />
          ))}
        </div>
      ) : log.isError && log.data === undefined ? (
        <LoadError
          message={`The request log could not be loaded: ${errorMessage(log.error)}`}
          testId="log-error"
          onRetry={() => void log.refetch()}
        />
      ) : events.length === 0 ? (
        <EmptyState testId="log-empty">{filtered ? "No requests match these filters." : "No requests in this period."}</EmptyState>
      ) : (
        <>
          <Table caption="Request log, newest first" data-testid="log-table">
            <TableHeaderRow
              columns={[
                "Time · request id", "Key", "Operation · parameters", "Status",
                { label: "Credits", className: "text-right" },
                { label: "Latency", className: "text-right" },
              ]}
            />
            <TableBody>
              {events.map((event) => (
                <LogRow key={event.id} event={event} />
              ))}
            </TableBody>
          </Table>
          <div className="flex flex-wrap items-center gap-3">
            {log.hasNextPage ? (
              <Button variant="secondary" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage} data-testid="log-load-more">
                {log.isFetchingNextPage ? "Loading…" : "Load more"}
              </Button>
            ) : (
              <p className="text-sm text-muted" data-testid="log-end">
                {formatCount(events.length)} request{events.length === 1 ? "" : "s"}: that is all of them.
              </p>
            )}
            {log.isError ? <FormError message={`More requests could not be loaded: ${errorMessage(log.error)}`} /> : null}
          </div>
        </>
      )}
    </div>
  );
}
