import { queryOptions } from "@tanstack/react-query";
import { operations } from "@/lib/api/operations";
import { runLookup, type RecentLookup } from "./lookup";

/**
 * Event lookups for the console's /events page: what the one input means (an event page URL or a
 * bare event id, and so which operation), and the query option factory of a lookup.
 * Every fetch costs credits, so a lookup never runs by itself: not on mount, focus, reconnect or
 * as a retry — only when the page enables it after the user's click.
 */
export type EventInput =
  | { operation: "event_details"; url: string; eventId: string }
  | { operation: "event_details_id"; eventId: string };

export type ParsedEventInput =
  | { kind: "empty" }
  | { kind: "valid"; input: EventInput }
  | { kind: "invalid"; reason: string };

const MAX_INPUT_LENGTH = 2048;
const EVENT_ID = /^\d{1,20}$/;
const EVENT_PATH = /^\/events\/(\d{1,20})\/?$/;

/** Same host rule as the server (lib/api/params.ts eventIdFromUrl): "www." and "m." are ignored. */
const acceptedHost = (host: string, hosts: readonly string[]): boolean =>
  hosts.length === 0 || hosts.includes("*") || hosts.includes(host.toLowerCase().replace(/^(www\.|m\.)/, ""));

/**
 * Reads the input as the server will: digits are an event id (event_details_id), anything else
 * must be an https event page URL on an accepted host (event_details). `hosts` are the server's
 * EVENTSITE_HOSTS; empty means "do not check here".
 */
export const parseEventInput = (raw: string, hosts: readonly string[] = []): ParsedEventInput => {
  const value = raw.trim();
  if (value === "") return { kind: "empty" };
  if (value.length > MAX_INPUT_LENGTH) return { kind: "invalid", reason: `That is longer than ${MAX_INPUT_LENGTH} characters.` };
  if (/^\d+$/.test(value)) {
    return EVENT_ID.test(value)
      ? { kind: "valid", input: { operation: "event_details_id", eventId: value } }
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
  const match = EVENT_PATH.exec(url.pathname);
  if (!match?.[1]) return { kind: "invalid", reason: "The URL must point to an event page: …/events/<id>/." };
  return { kind: "valid", input: { operation: "event_details", url: value, eventId: match[1] } };
};

/** What goes into ?q= and back into the input: the URL or the id as typed (trimmed). */
export const eventInputValue = (input: EventInput): string =>
  input.operation === "event_details" ? input.url : input.eventId;

export const eventsPageHref = (value: string): string => `/events?q=${encodeURIComponent(value)}`;

export const eventLookupCost = operations.event_details.costCredits;

export const eventQueryKey = (input: EventInput) => ["event", input.operation, eventInputValue(input)] as const;

export const eventQuery = (input: EventInput) =>
  queryOptions({
    queryKey: eventQueryKey(input),
    queryFn: (context) =>
      input.operation === "event_details"
        ? runLookup("event_details", { url: input.url }, context)
        : runLookup("event_details_id", { event_id: input.eventId }, context),
    // A card stays as fetched until the user asks again: each fetch costs credits.
    staleTime: Infinity,
    gcTime: 60 * 60_000,
    retry: false,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

export const recentEventOperations = ["event_details", "event_details_id"] as const;

/** A recent lookup (from the usage records) as an input to run again; null when it cannot be. */
export const eventInputFromRecent = (item: RecentLookup): EventInput | null => {
  if (item.truncated) return null;
  const value = item.operation === "event_details" ? item.params.url : item.operation === "event_details_id" ? item.params.event_id : undefined;
  if (value === undefined) return null;
  const parsed = parseEventInput(value);
  return parsed.kind === "valid" && parsed.input.operation === item.operation ? parsed.input : null;
};
