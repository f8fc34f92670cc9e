import { z } from "zod";
import { eventDataSchema, followersDataSchema, publicationsDataSchema, type EventRecord } from "@/lib/records/records";
import type { BatchRow } from "./define";

/** The value when `schema` accepts it, else null. */
const readerOf =
  <T>(schema: z.ZodType<T>) =>
  (data: unknown): T | null => {
    const parsed = schema.safeParse(data);
    return parsed.success ? parsed.data : null;
  };

/**
 * Readers of a 200 answer's `data` for batch results (CSV rows, table summaries, next pages).
 * They check with the API's own schemas, so a record that does not match yields nothing
 * instead of a half-filled row.
 */
const eventDataOf = readerOf(eventDataSchema);
export const eventOf = (data: unknown): EventRecord | null => eventDataOf(data)?.event ?? null;
export const followersOf = readerOf(followersDataSchema);
export const publicationsOf = readerOf(publicationsDataSchema);

/**
 * A page's paging fields alone, for summaries and next pages (a tool call reads them on every
 * answer): the entries are counted, not checked one by one.
 */
export const followersPagingOf = readerOf(followersDataSchema.extend({ followers: z.array(z.unknown()) }));
export const publicationsPagingOf = readerOf(publicationsDataSchema.extend({ data: z.array(z.unknown()) }));

/** One CSV row per entry: the entry's value of each column, in the columns' order. */
export const columnsOf = <Entry extends object>(entries: readonly Entry[], columns: readonly (keyof Entry & string)[]): BatchRow[] =>
  entries.map((entry) => Object.fromEntries(columns.map((column) => [column, entry[column] as BatchRow[string]])));

export const eventColumns = [
  "event_id",
  "title",
  "start_date",
  "start_time",
  "end_date",
  "end_time",
  "local_formatted_time",
  "location_text",
  "lat",
  "lng",
  "hosts",
  "responded_count",
  "is_canceled",
  "cover_image_url",
  "source",
] as const;

export const eventRow = (event: EventRecord): BatchRow => ({
  event_id: event.event_id,
  title: event.title,
  start_date: event.start_date,
  start_time: event.start_time,
  end_date: event.end_date,
  end_time: event.end_time,
  local_formatted_time: event.local_formatted_time,
  location_text: event.location_text,
  lat: event.lat,
  lng: event.lng,
  hosts: event.hosts.join("; "),
  responded_count: event.responded_count,
  is_canceled: event.is_canceled,
  cover_image_url: event.cover_image_url,
  source: event.source,
});

/** The event operations share their batch knowledge: same record, same export. */
export const eventBatch = (invalidInput: string) => ({
  invalidInput,
  columns: eventColumns,
  rows: (data: unknown): BatchRow[] => {
    const event = eventOf(data);
    return event ? [eventRow(event)] : [];
  },
  summary: (data: unknown): string => {
    const event = eventOf(data);
    return event ? `${event.title} · ${event.start_date}${event.is_canceled ? " · canceled" : ""}` : "";
  },
  exportRecord: (_query: URLSearchParams, pages: readonly unknown[]): unknown => {
    const event = eventOf(pages[0]);
    return event ? { event } : null;
  },
});
