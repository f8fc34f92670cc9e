import type { Queryable } from "@/lib/db/client";
import { csvLine, type CsvValue } from "@/lib/export/csv";
import { listEvents, STATUS_CLASS_RANGES, type EventFilters, type StatusFilter, type UsageEvent } from "./events";
import type { Day } from "./period";
import { scopeCondition, type UsageScope } from "./scope";

/**
 * CSV exports of the request log and of the daily totals, streamed: a ReadableStream that
 * reads the next keyset page only when the consumer asks for more, so an export of any size
 * holds one page in memory.
 *
 * Format: RFC 4180 as lib/export/csv.ts writes it, UTF-8, text cells defused against
 * spreadsheet formulas there. Times are ISO-8601 UTC ("2025-06-14T18:00:00.123Z"), days
 * "YYYY-MM-DD" (UTC).
 */

export const EVENT_COLUMNS = [
  "request_id",
  "created_at",
  "key_id",
  "key_name",
  "operation",
  "status",
  "credits_charged",
  "latency_ms",
  "params_summary",
  "reason",
  "requests",
] as const;

const eventCsvValues = (event: UsageEvent): CsvValue[] => [
  event.requestId,
  event.createdAt,
  event.keyId,
  event.keyName,
  event.operation,
  event.status,
  event.creditsCharged,
  event.latencyMs,
  event.paramsSummary,
  event.reason,
  event.requests,
];

export const DAILY_COLUMNS = [
  "day",
  "key_id",
  "key_name",
  "operation",
  "status",
  "requests",
  "credits",
  "latency_ms_sum",
] as const;

type DailyRow = {
  day: Day;
  keyId: string;
  keyName: string;
  operation: string;
  status: number;
  requests: number;
  credits: number;
  latencyMsSum: number;
};

const dailyCsvValues = (row: DailyRow): CsvValue[] => [
  row.day,
  row.keyId,
  row.keyName,
  row.operation,
  row.status,
  row.requests,
  row.credits,
  row.latencyMsSum,
];

type Page<Row, Cursor> = { rows: Row[]; next: Cursor | null };

/** A CSV stream over keyset pages; `onError` hears a failure that cuts the stream short. */
const csvStream = <Row, Cursor>(options: {
  header: readonly string[];
  /** Text before the header: the byte-order mark of a file handed to people (lib/export/bom.ts). */
  leading?: string;
  values: (row: Row) => CsvValue[];
  page: (cursor: Cursor | null) => Promise<Page<Row, Cursor>>;
  onError?: (error: unknown) => void;
}): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  let cursor: Cursor | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!started) {
            started = true;
            controller.enqueue(encoder.encode((options.leading ?? "") + csvLine(options.header)));
          }
          const { rows, next } = await options.page(cursor);
          if (rows.length > 0) controller.enqueue(encoder.encode(rows.map((row) => csvLine(options.values(row))).join("")));
          if (next === null) controller.close();
          else cursor = next;
        } catch (error) {
          options.onError?.(error);
          controller.error(error);
        }
      },
    },
    // One page at a time: the next query runs only once the consumer has taken this one.
    { highWaterMark: 1 },
  );
};

const EXPORT_PAGE_SIZE = 1000;

/** `onError` hears a failure that cuts the stream short; `leading` goes before the header (a byte-order mark). */
export type CsvOptions = { onError?: (error: unknown) => void; leading?: string };

/**
 * One usage export: its columns, a row's cells and how the listing reads a page after a cursor;
 * the stream it gives reads EXPORT_PAGE_SIZE rows at a time.
 */
const usageExport =
  <Row, Cursor, Filters>(spec: {
    header: readonly string[];
    values: (row: Row) => CsvValue[];
    page: (db: Queryable, scope: UsageScope, filters: Filters, cursor: Cursor | null) => Promise<Page<Row, Cursor>>;
  }) =>
  (db: Queryable, scope: UsageScope, filters: Filters, options: CsvOptions = {}): ReadableStream<Uint8Array> =>
    csvStream<Row, Cursor>({
      header: spec.header,
      values: spec.values,
      ...options,
      page: (cursor) => spec.page(db, scope, filters, cursor),
    });

export const eventsCsv = usageExport<UsageEvent, string, EventFilters>({
  header: EVENT_COLUMNS,
  values: eventCsvValues,
  page: async (db, scope, filters, cursor) => {
    const page = await listEvents(db, scope, filters, { cursor: cursor ?? undefined, limit: EXPORT_PAGE_SIZE });
    return { rows: page.events, next: page.nextCursor };
  },
});

type DailyRecord = {
  day: string;
  key_id: string;
  key_name: string;
  operation: string;
  status: number;
  requests: number;
  credits: number;
  latency_ms_sum: number;
};

type DailyPosition = { day: string; keyId: string; operation: string; status: number };

type DailyFilters = { from: Day; to: Day; operation?: string; status?: StatusFilter };

/**
 * Daily rollup rows of the scope, oldest day first, keyset-paged on the rollup's own key. Text
 * compares bytewise (COLLATE "C") so the order and the keyset agree on every database.
 */
const listDaily = async (
  db: Queryable,
  scope: UsageScope,
  filters: DailyFilters,
  page: { after: DailyPosition | null; limit: number },
): Promise<Page<DailyRow, DailyPosition>> => {
  const params: unknown[] = [filters.from, filters.to];
  const where = ["d.day BETWEEN $1::date AND $2::date", "d.status <> 102", scopeCondition(scope, params, "d.key_id")];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.operation !== undefined) where.push(`d.operation = ${add(filters.operation)}`);
  if (typeof filters.status === "number") where.push(`d.status = ${add(filters.status)}`);
  else if (filters.status !== undefined) {
    const [low, high] = STATUS_CLASS_RANGES[filters.status];
    where.push(`d.status BETWEEN ${add(low)} AND ${add(high)}`);
  }
  if (page.after !== null) {
    const { day, keyId, operation, status } = page.after;
    where.push(
      `(d.day, d.key_id COLLATE "C", d.operation COLLATE "C", d.status) > (${add(day)}::date, ${add(keyId)} COLLATE "C", ${add(operation)} COLLATE "C", ${add(status)}::integer)`,
    );
  }
  const rows = await db.query<DailyRecord>(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.key_id, k.name AS key_name, d.operation, d.status,
       d.requests::float8 AS requests, d.credits::float8 AS credits, d.latency_ms_sum::float8 AS latency_ms_sum
     FROM usage_daily d JOIN api_keys k ON k.id = d.key_id
     WHERE ${where.join(" AND ")}
     ORDER BY d.day, d.key_id COLLATE "C", d.operation COLLATE "C", d.status
     LIMIT ${add(page.limit + 1)}`,
    params,
  );
  const shown = rows.slice(0, page.limit).map(
    (row): DailyRow => ({
      day: row.day,
      keyId: row.key_id,
      keyName: row.key_name,
      operation: row.operation,
      status: row.status,
      requests: row.requests,
      credits: row.credits,
      latencyMsSum: row.latency_ms_sum,
    }),
  );
  const last = shown.at(-1);
  return {
    rows: shown,
    next: rows.length > page.limit && last ? { day: last.day, keyId: last.keyId, operation: last.operation, status: last.status } : null,
  };
};

export const dailyCsv = usageExport<DailyRow, DailyPosition, DailyFilters>({
  header: DAILY_COLUMNS,
  values: dailyCsvValues,
  page: (db, scope, filters, after) => listDaily(db, scope, filters, { after, limit: EXPORT_PAGE_SIZE }),
});
