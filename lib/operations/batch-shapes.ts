import { z } from "zod";
import { eventDataSchema, followersDataSchema, publicationsDataSchema, type EventRecord } from "@/lib/records/records";
import type { BatchRow } from "./define";
import { valuesAt } from "./paths";

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

/**
 * One CSV cell of a record's field: a list of values is joined with "; " (an event's hosts), an
 * object is written as JSON, anything else as it is. The SDKs' command line flattens alike.
 */
export const cellOf = (value: unknown): BatchRow[string] => {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map(String).join("; ");
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return String(value);
};

/**
 * An operation's CSV table (columns, where its rows are, the rows): one row per record found at
 * `rowsAt` (lib/operations/paths.ts) in a page that `reader` accepts, with the columns' cells.
 */
export const tableOf = (reader: (data: unknown) => unknown, rowsAt: string, columns: readonly string[]) => ({
  columns,
  rowsAt,
  rows: (data: unknown): BatchRow[] =>
    reader(data) === null
      ? []
      : valuesAt(data, rowsAt).map((record) =>
          Object.fromEntries(columns.map((column) => [column, cellOf(typeof record === "object" && record !== null ? (record as Record<string, unknown>)[column] : undefined)])),
        ),
});

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

/** The event operations share their batch knowledge: same record, same export. */
export const eventBatch = (invalidInput: string) => ({
  invalidInput,
  ...tableOf(eventOf, "event", eventColumns),
  summary: (data: unknown): string => {
    const event = eventOf(data);
    return event ? `${event.title} · ${event.start_date}${event.is_canceled ? " · canceled" : ""}` : "";
  },
  exportRecord: (_query: URLSearchParams, pages: readonly unknown[]): unknown => {
    const event = eventOf(pages[0]);
    return event ? { event } : null;
  },
});
