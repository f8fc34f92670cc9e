import { queryOptions } from "@tanstack/react-query";
import type { EventRecord } from "@/lib/records/records";
import { eventDetailsOperation as eventDetails } from "@/lib/operations/event-details/descriptor";
import { eventDetailsIdOperation as eventDetailsId } from "@/lib/operations/event-details-id/descriptor";
import { acceptsParam, EVENT_PAGE_PATH, isEventSiteHost, MAX_PARAM_LENGTH } from "@/lib/records/param-rules";
import { fetchLookup } from "./fetch-lookup";
import type { RecentLookup } from "./recent-lookups";

/**
 * Event lookups for the console's /events page: what the one input means (an event page URL or a
 * bare event id, and so which operation), and the query option factory of a lookup.
 * Every fetch costs credits, so a lookup never runs by itself: not on mount, focus, reconnect or
 * as a retry — only when the page enables it after the user's click.
 */
export type EventData = { event: EventRecord };

export type EventInput = { by: "url"; url: string; eventId: string } | { by: "id"; eventId: string };

/** The operation an input runs: by URL or by id. */
export const eventOperationOf = (input: EventInput) => (input.by === "url" ? eventDetails : eventDetailsId);

export type ParsedEventInput =
  | { kind: "empty" }
  | { kind: "valid"; input: EventInput }
  | { kind: "invalid"; reason: string };

// The server's own rules (lib/records/param-rules.ts), with a sentence for each way an input can fail.
const MAX_INPUT_LENGTH = MAX_PARAM_LENGTH;
const isEventId = (value: string) => acceptsParam("event_id", value);
const acceptedHost = (host: string, hosts: readonly string[]): boolean => hosts.length === 0 || isEventSiteHost(host, hosts);

/**
 * Reads the input as the server will: digits are an event id (the by-id operation), anything else
 * must be an https event page URL on an accepted host (the by-URL operation). `hosts` are the server's
 * EVENTSITE_HOSTS; empty means "do not check here".
 */
export const parseEventInput = (raw: string, hosts: readonly string[] = []): ParsedEventInput => {
  const value = raw.trim();
  if (value === "") return { kind: "empty" };
  if (value.length > MAX_INPUT_LENGTH) return { kind: "invalid", reason: `That is longer than ${MAX_INPUT_LENGTH} characters.` };
  if (/^\d+$/.test(value)) {
    return isEventId(value)
      ? { kind: "valid", input: { by: "id", eventId: value } }
      : { kind: "invalid", reason: "An event id has at most 20 digits." };
  }
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) {
    return /[./]/.test(value)
      ? { kind: "invalid", reason: "Event page URLs start with https://." }
      : { kind: "invalid", reason: "Enter an event page URL or an event id (digits only)." };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { kind: "invalid", reason: "That is not a valid URL." };
  }
  if (url.protocol !== "https:") return { kind: "invalid", reason: "Use the https:// address of the event page." };
  if (url.username !== "" || url.password !== "") {
    return { kind: "invalid", reason: "The URL must not contain a user name or password." };
  }
  if (!acceptedHost(url.host, hosts)) {
    return { kind: "invalid", reason: `Only event pages on ${hosts.join(", ")} can be looked up.` };
  }
  const match = EVENT_PAGE_PATH.exec(url.pathname);
  if (!match?.[1]) return { kind: "invalid", reason: "The URL must point to an event page: …/events/<id>/." };
  return { kind: "valid", input: { by: "url", url: value, eventId: match[1] } };
};

/**
 * The by-URL operation's id when `values` were given to the by-id operation but read as event page
 * URLs (pasted under the wrong choice); null otherwise. The caller offers the switch.
 */
export const byUrlInstead = (operationId: string, values: readonly string[], hosts: readonly string[]): string | null => {
  if (operationId !== eventDetailsId.id) return null;
  const looksLikeUrl = values.some((value) => {
    const parsed = parseEventInput(value, hosts);
    return parsed.kind === "valid" && parsed.input.by === "url";
  });
  return looksLikeUrl ? eventDetails.id : null;
};

/** What goes into ?q= and back into the input: the URL or the id as typed (trimmed). */
export const eventInputValue = (input: EventInput): string =>
  input.by === "url" ? input.url : input.eventId;

export const eventsPageHref = (value: string): string => `/events?q=${encodeURIComponent(value)}`;

export const eventLookupCost = eventDetails.costCredits;

export const eventQueryKey = (input: EventInput) => ["event", eventOperationOf(input).id, eventInputValue(input)] as const;

export const eventQuery = (input: EventInput) =>
  queryOptions({
    queryKey: eventQueryKey(input),
    queryFn: (context) =>
      input.by === "url"
        ? fetchLookup<EventData>(eventDetails, { url: input.url }, context)
        : fetchLookup<EventData>(eventDetailsId, { event_id: input.eventId }, context),
    // A card stays as fetched until the user asks again: each fetch costs credits.
    staleTime: Infinity,
    gcTime: 60 * 60_000,
    retry: false,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

export const recentEventOperations = [eventDetails.id, eventDetailsId.id] as const;

/** A recent lookup (from the usage records) as an input to run again; null when it cannot be. */
export const eventInputFromRecent = (item: RecentLookup): EventInput | null => {
  if (item.truncated) return null;
  const operation = [eventDetails, eventDetailsId].find((candidate) => candidate.id === item.operation);
  const value = operation === undefined ? undefined : item.params[operation.primaryParam];
  if (value === undefined) return null;
  const parsed = parseEventInput(value);
  return parsed.kind === "valid" && eventOperationOf(parsed.input).id === item.operation ? parsed.input : null;
};
