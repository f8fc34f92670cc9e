"use client";

import { useQuery, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useId, useRef, useState, type FormEvent } from "react";
import { useOperationCost } from "@/components/credit-meter";
import { bindValue } from "@/components/ui/bind-value";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { formatDateTime } from "@/components/ui/date-time";
import { verbatimText } from "@/components/ui/input";
import {
  eventInputValue,
  eventLookupCost,
  eventOperationOf,
  eventQuery,
  eventsPageHref,
  parseEventInput,
  type EventData,
  type EventInput,
  type ParsedEventInput,
} from "@/lib/query/events";
import type { LookupSuccess } from "@/lib/query/fetch-lookup";
import { isLookupError } from "@/lib/query/lookup-error";
import { EventCard, EventCardSkeleton } from "./event-card";
import { LookupErrorPanel } from "@/components/lookup/lookup-error-panel";
import { RecentEventLookups } from "./recent-lookups";

/**
 * The /events page: one input (event page URL or bare id), the operation it will use and its
 * cost, the event card, and recent lookups. The looked-up input lives in the URL (?q=) so Back,
 * Forward and reload keep it; a lookup only ever runs on a click — a reload shows the card from
 * this session's cache, or a Run button, never a silent paid lookup.
 */
export type EventsLookupProps = {
  /** The server's accepted event-site hosts (EVENTSITE_HOSTS), checked as you type. */
  hosts: readonly string[];
  /** The app's public origin, for its own cover images. */
  publicOrigin: string;
};


const operationHint = (parsed: ParsedEventInput): string => {
  switch (parsed.kind) {
    case "empty":
      return "Paste an event page URL or type an event id.";
    case "invalid":
      return parsed.reason;
    case "valid":
      return `${parsed.input.by === "url" ? "By URL" : "By id"} — ${eventOperationOf(parsed.input).id} — ${eventLookupCost} credits`;
  }
};

const EMPTY_PROBLEM = "Enter an event page URL or an event id.";

const queryValue = (params: URLSearchParams): string => (params.get("q") ?? params.get("id") ?? params.get("url") ?? "").trim();

// Stands in while the address holds no valid input: its query is never enabled.
const NO_EVENT: EventInput = { by: "id", eventId: "" };

type EventResultProps = {
  input: EventInput;
  query: UseQueryResult<LookupSuccess<EventData>>;
  onRun: (input: EventInput) => void;
  onOpenRelated: (eventId: string) => void;
  publicOrigin: string;
};

function EventResult({ input, query, onRun, onOpenRelated, publicOrigin }: EventResultProps) {
  const { data, error, isFetching, errorUpdatedAt } = query;
  const status = isFetching ? "Looking up the event…" : error ? "" : data ? `Event loaded: ${data.data.event.title}` : "";

  return (
    <div className="flex flex-col gap-4">
      <p className="sr-only" role="status">
        {status}
      </p>
      {error && !isFetching ? <LookupErrorPanel error={error} subject="event" errorAt={errorUpdatedAt} onRetry={() => void query.refetch()} /> : null}
      {data ? (
        <div className={cx("transition-opacity", isFetching && "opacity-60")} aria-busy={isFetching}>
          <EventCard
            event={data.data.event}
            publicOrigin={publicOrigin}
            onOpenRelated={onOpenRelated}
            footer={
              <>
                <span className="tabular-nums" data-testid="event-lookup-meta">
                  Looked up {formatDateTime(query.dataUpdatedAt)} · {data.creditsCharged} credits charged
                  <span className="hidden sm:inline"> · request </span>
                  <span className="hidden font-mono sm:inline">{data.requestId}</span>
                </span>
                <Button
                  variant="secondary"
                  size="sm"
                  onClick={() => void query.refetch()}
                  disabled={isFetching}
                  data-testid="event-run-again"
                >
                  {isFetching ? "Running…" : `Run again — ${eventLookupCost} credits`}
                </Button>
              </>
            }
          />
        </div>
      ) : isFetching ? (
        <EventCardSkeleton />
      ) : !error ? (
        <div
          className="flex flex-col items-start gap-3 rounded-xl border border-dashed border-border-strong p-5 text-sm sm:flex-row sm:items-center sm:justify-between"
          data-testid="event-not-run"
        >
          <p className="text-muted">
            <span className="font-medium text-foreground">{eventInputValue(input)}</span> has not been looked up in this
            session. Running it costs {eventLookupCost} credits.
          </p>
          <Button onClick={() => onRun(input)} data-testid="event-run-saved">
            Run — {eventLookupCost} credits
          </Button>
        </div>
      ) : null}
    </div>
  );
}

export function EventsLookup({ hosts, publicOrigin }: EventsLookupProps) {
  useOperationCost(eventLookupCost);
  const queryClient = useQueryClient();
  const searchParams = useSearchParams();
  const q = queryValue(searchParams);

  const [draft, setDraft] = useState(q);
  const [syncedQ, setSyncedQ] = useState(q);
  const [submittedInvalid, setSubmittedInvalid] = useState(false);
  // The ?q= value the user asked to run on this page; a reload or a shared link starts with none.
  const [runFor, setRunFor] = useState<string | null>(null);
  // Since when the card for ?q= is on show (a Run, Back/Forward): a card fetched before that was
  // brought back from this session without a charge.
  const [shownSince, setShownSince] = useState(() => Date.now());
  if (q !== syncedQ) {
    // Back/Forward changed the URL: the input follows it.
    setSyncedQ(q);
    setShownSince(Date.now());
    setDraft(q);
    setSubmittedInvalid(false);
  }

  const inputRef = useRef<HTMLInputElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  const inputId = useId();
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;

  const draftParsed = parseEventInput(draft, hosts);
  const active = parseEventInput(q, hosts);
  const activeInput = active.kind === "valid" ? active.input : null;

  // Enabled only once the user ran this input here: a reload shows the cached card or a Run button.
  const activeQuery = useQuery({ ...eventQuery(activeInput ?? NO_EVENT), enabled: activeInput !== null && runFor === q });
  const activeError = activeQuery.error;
  const serverFieldError =
    draft.trim() === q &&
    isLookupError(activeError) &&
    activeError.code === "bad_request" &&
    (activeError.field === "url" || activeError.field === "event_id");
  const invalidShown = (submittedInvalid && draftParsed.kind !== "valid") || serverFieldError;
  // Said only of a card Run brought back from this session without buying it again: not of the
  // lookup just charged, nor after "Run again" replaced the card.
  const shownWithoutCharge = draft.trim() === q && activeQuery.data !== undefined && activeQuery.dataUpdatedAt < shownSince;

  const run = (input: EventInput) => {
    const value = eventInputValue(input);
    if (value !== q) window.history.pushState(null, "", eventsPageHref(value));
    setDraft(value);
    setSubmittedInvalid(false);
    const { queryKey } = eventQuery(input);
    const state = queryClient.getQueryState(queryKey);
    setShownSince(Date.now());
    // Asked again after a failure: try again. A cached card is shown as is ("Run again" refreshes it).
    if (runFor === value && state?.status === "error" && state.fetchStatus === "idle") {
      void queryClient.refetchQueries({ queryKey, exact: true });
    }
    setRunFor(value);
  };

  const onSubmit = (submit: FormEvent<HTMLFormElement>) => {
    submit.preventDefault();
    if (draftParsed.kind !== "valid") {
      setSubmittedInvalid(true);
      inputRef.current?.focus();
      return;
    }
    run(draftParsed.input);
  };

  const openRelated = (eventId: string) => {
    run({ by: "id", eventId });
    resultRef.current?.scrollIntoView({ block: "start", behavior: "smooth" });
    resultRef.current?.focus({ preventScroll: true });
  };

  const hintTone = draftParsed.kind === "invalid" && !invalidShown ? "text-warning" : "text-muted";
  // The same pattern as every lookup field (components/ui/input.tsx): red border, the problem in red under the field.
  const fieldError = !invalidShown
    ? null
    : draftParsed.kind === "empty"
      ? EMPTY_PROBLEM
      : draftParsed.kind === "invalid"
        ? draftParsed.reason
        : isLookupError(activeError)
          ? activeError.message
          : null;

  return (
    <div className="flex flex-col gap-6">
      <form onSubmit={onSubmit} noValidate role="search" aria-label="Event lookup" className="flex flex-col gap-1.5">
        <label htmlFor={inputId} className="text-sm font-medium text-foreground">
          Event page URL or event id
        </label>
        <div className="flex flex-col gap-2 sm:flex-row">
          <input
            ref={inputRef}
            id={inputId}
            name="q"
            type="text"
            {...bindValue(draft, setDraft, () => setSubmittedInvalid(false))}
            placeholder={`https://${hosts.find((host) => host !== "*") ?? "events.demo.test"}/events/1000000000000001/`}
            {...verbatimText}
            aria-describedby={fieldError ? errorId : hintId}
            aria-invalid={invalidShown ? true : undefined}
            className={cx(
              "h-10 w-full min-w-0 rounded-lg border sm:flex-1 bg-surface px-3 font-mono text-sm text-foreground shadow-sm",
              "placeholder:font-sans placeholder:text-muted/70 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring",
              invalidShown ? "border-danger" : "border-border-strong",
            )}
            data-testid="event-input"
          />
          <Button type="submit" className="sm:w-28" data-testid="event-run">
            Run
          </Button>
        </div>
        {fieldError ? (
          <p id={errorId} className="min-h-5 text-xs font-medium text-danger" aria-live="polite" data-testid="event-input-error">
            {fieldError}
          </p>
        ) : (
          <p id={hintId} className={cx("min-h-5 text-xs", hintTone)} aria-live="polite">
            <span data-testid="operation-hint" data-kind={draftParsed.kind}>
              {operationHint(draftParsed)}
            </span>
            {shownWithoutCharge ? (
              <span className="text-muted" data-testid="event-shown-again">
                {" "}
                · already looked up here: shown again without a charge
              </span>
            ) : null}
          </p>
        )}
      </form>

      <div className="grid grid-cols-1 gap-6 xl:grid-cols-[minmax(0,1fr)_17rem] xl:items-start">
        <div ref={resultRef} tabIndex={-1} className="min-w-0 scroll-mt-6 focus:outline-none" aria-label="Lookup result">
          {invalidShown && draftParsed.kind !== "valid" ? null : activeInput ? (
            <EventResult
              input={activeInput}
              query={activeQuery}
              onRun={run}
              onOpenRelated={openRelated}
              publicOrigin={publicOrigin}
            />
          ) : q !== "" ? (
            <p className="rounded-xl border border-dashed border-border-strong p-5 text-sm text-muted">
              The address holds <span className="font-mono text-foreground">{q}</span>, which is not an event URL or id:{" "}
              {operationHint(active)}
            </p>
          ) : (
            <div className="rounded-xl border border-dashed border-border-strong p-6 text-sm text-muted">
              <p className="font-medium text-foreground">No event yet</p>
              <p className="mt-1">
                Paste an event page URL such as{" "}
                <span className="font-mono break-all">https://events.demo.test/events/1000000000000001/</span> or type an event
                id, then press Run. The card shows the cover, times, location with a map link, hosts, details and related
                events.
              </p>
            </div>
          )}
        </div>
        <RecentEventLookups onOpen={run} currentValue={activeInput ? q : undefined} />
      </div>
    </div>
  );
}
