import type { Queryable } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { CONSOLE_KEY_NAME } from "@/lib/keys/label";
import { keyNames } from "./group-labels";
import type { StatusClass } from "./summary";
import type { UsageScope } from "./scope";

/**
 * The request log: usage records, newest first, keyset-paginated on (created_at, id) so every
 * page is an index range scan (usage_events_key_time_idx / usage_events_time_idx) however deep
 * the client pages. Pending reservations (status 102) are left out until they finish.
 *
 * The cursor is opaque to clients: base64url of the last row's exact timestamp (microseconds)
 * and id. It carries no authority — every page is still limited to the caller's scope.
 */
export type StatusFilter = number | StatusClass;

export type EventFilters = {
  operation?: string;
  status?: StatusFilter;
  /** Inclusive lower bound. */
  from?: Date;
  /** Exclusive upper bound. */
  to?: Date;
  /** Exact request id (a UUID). */
  requestId?: string;
  /** Where the requests came in: /v1 ("api"), the console, a batch or an MCP tool call. */
  channel?: "api" | "console" | "batch" | "mcp";
};

export type UsageEvent = {
  /** Row id, as a string (bigserial). */
  id: string;
  requestId: string;
  keyId: string;
  keyName: string;
  operation: string;
  status: number;
  creditsCharged: number;
  latencyMs: number;
  paramsSummary: string;
  /** Why a 402 was refused: "credits" or "daily_cap"; "refunded"/"abandoned" for given-back reservations; "" otherwise. */
  reason: string;
  /** ISO-8601 UTC, millisecond precision. */
  createdAt: string;
  /**
   * How many requests the record stands for: 1, or more for an aggregate of free refusals
   * (402/403/429 beyond the first 10 per key, operation, status and second; its request id,
   * parameters and time are the first folded request's, its latency the slowest).
   */
  requests: number;
  /** Where the request came in: "api" (/v1 with a key), "console", "batch" or "mcp". */
  channel: string;
};

export type EventsPage = { events: UsageEvent[]; nextCursor: string | null };

export const MAX_EVENTS_PAGE = 1000;

/** A cursor this service did not make (or one tampered with): the invalid_cursor failure. */
export class InvalidCursorError extends DomainError {
  constructor() {
    super("invalid_cursor", "Invalid cursor.");
    this.name = "InvalidCursorError";
  }
}

type Position = { at: string; id: string };

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export const encodeCursor = (position: Position): string =>
  Buffer.from(`${position.at}|${position.id}`, "utf8").toString("base64url");

export const decodeCursor = (cursor: string): Position => {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new InvalidCursorError();
  const [at, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (rest.length > 0 || at === undefined || id === undefined || !TIMESTAMP.test(at) || !/^\d{1,18}$/.test(id)) {
    throw new InvalidCursorError();
  }
  if (Number.isNaN(Date.parse(at))) throw new InvalidCursorError();
  return { at, id };
};

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const STATUS_CLASS_RANGES: Record<StatusClass, [number, number]> = {
  "2xx": [200, 299],
  "4xx": [400, 499],
  "5xx": [500, 599],
};

type EventRow = {
  id: string | number;
  request_id: string;
  key_id: string;
  key_name: string;
  operation: string;
  status: number;
  credits_charged: number;
  latency_ms: number;
  params_summary: string;
  reason: string;
  created_at_ms: string;
  created_at_us: string;
  requests: number;
  channel: string;
};

const SELECT_COLUMNS = `e.id::text AS id, e.request_id::text AS request_id, e.key_id, k.name AS key_name, e.operation, e.status,
  e.credits_charged, e.latency_ms, e.params_summary, e.reason, e.requests, e.channel,
  to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at_ms,
  to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_us`;

/**
 * Statuses the write path records (settle_requests, sweep_stale_reservations, release_unanswered;
 * 401 leaves no record, 102 is a pending reservation). A status class reads these, one index range each.
 */
export const RECORDED_STATUSES = [200, 400, 402, 403, 404, 429, 499, 500] as const;

const statusesOf = (status: StatusFilter | undefined): number[] | null => {
  if (status === undefined) return null;
  if (typeof status === "number") return [status];
  const [low, high] = STATUS_CLASS_RANGES[status];
  return RECORDED_STATUSES.filter((recorded) => recorded >= low && recorded <= high);
};

/** Conditions on `e` other than key and status: filters and the cursor position. */
const conditions = (filters: EventFilters, position: Position | null, params: unknown[]): string[] => {
  const where = ["e.status <> 102"];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.operation !== undefined) where.push(`e.operation = ${add(filters.operation)}`);
  if (filters.from !== undefined) where.push(`e.created_at >= ${add(filters.from.toISOString())}::timestamptz`);
  if (filters.to !== undefined) where.push(`e.created_at < ${add(filters.to.toISOString())}::timestamptz`);
  if (filters.requestId !== undefined) where.push(`e.request_id = ${add(filters.requestId)}::uuid`);
  if (filters.channel !== undefined) where.push(`e.channel = ${add(filters.channel)}`);
  if (position !== null) where.push(`(e.created_at, e.id) < (${add(position.at)}::timestamptz, ${add(position.id)}::bigint)`);
  return where;
};

const toEvent = (row: EventRow): UsageEvent => ({
  id: String(row.id),
  requestId: row.request_id,
  keyId: row.key_id,
  keyName: row.key_name,
  operation: row.operation,
  status: row.status,
  creditsCharged: row.credits_charged,
  latencyMs: row.latency_ms,
  paramsSummary: row.params_summary,
  reason: row.reason,
  createdAt: row.created_at_ms,
  requests: Number(row.requests),
  channel: row.channel,
});

const ORDER = "ORDER BY e.created_at DESC, e.id DESC";

/**
 * One page. The rows are read in lanes — one per key of the scope, times one per asked status —
 * each an ordered index range (usage_events_key_time_idx, or the partial key/status and status
 * indexes for error statuses) stopping after `limit` rows; the lanes are merged and cut to the
 * page. So every page is keyset work, whatever the number of keys, the filters or the depth,
 * and a filter that matches rarely never scans a key's whole history.
 */
export const listEvents = async (
  db: Queryable,
  scope: UsageScope,
  filters: EventFilters,
  page: { cursor?: string; limit: number },
): Promise<EventsPage> => {
  const limit = Math.min(Math.max(1, Math.floor(page.limit)), MAX_EVENTS_PAGE);
  const position = page.cursor === undefined ? null : decodeCursor(page.cursor);
  const statuses = statusesOf(filters.status);
  const empty: EventsPage = { events: [], nextCursor: null };
  if (filters.requestId !== undefined && !UUID_PATTERN.test(filters.requestId)) return empty;
  if (scope.kind === "keys" && scope.keyIds.length === 0) return empty;
  if (statuses !== null && statuses.length === 0) return empty;

  const params: unknown[] = [];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = conditions(filters, position, params);
  const limitParam = add(limit + 1);
  const lanes: string[] = [];
  if (scope.kind === "keys" && scope.keyIds.length === 1) where.push(`e.key_id = ${add(scope.keyIds[0])}`);
  else if (scope.kind === "keys") {
    lanes.push(`unnest(${add([...scope.keyIds])}::text[]) AS s(key_id)`);
    where.push("e.key_id = s.key_id");
  }
  if (statuses !== null && statuses.length === 1) where.push(`e.status = ${add(statuses[0])}::integer`);
  else if (statuses !== null) {
    lanes.push(`unnest(${add(statuses)}::integer[]) AS st(status)`);
    where.push("e.status = st.status");
  }
  // Spelled out (the planner cannot see through parameters) so the partial indexes apply.
  if (statuses !== null && !statuses.includes(200)) where.push("e.status <> 200");

  const inner = `SELECT ${SELECT_COLUMNS}, e.created_at AS sort_at, e.id AS sort_id
    FROM usage_events e JOIN api_keys k ON k.id = e.key_id
    WHERE ${where.join(" AND ")} ${ORDER} LIMIT ${limitParam}`;
  const sql =
    lanes.length === 0
      ? inner
      : `SELECT e.* FROM ${lanes.join(" CROSS JOIN ")} CROSS JOIN LATERAL (${inner}) e
         ORDER BY e.sort_at DESC, e.sort_id DESC LIMIT ${limitParam}`;
  const rows = await db.query<EventRow>(sql, params);
  const pageRows = rows.slice(0, limit);
  const last = pageRows.at(-1);
  // Console keys are named with their maker (lib/keys/label.ts); other names need no second read.
  const consoleKeyIds = [...new Set(pageRows.filter((row) => row.key_name === CONSOLE_KEY_NAME).map((row) => row.key_id))];
  const labels = await keyNames(db, consoleKeyIds);
  return {
    events: pageRows.map((row) => toEvent({ ...row, key_name: labels.get(row.key_id) ?? row.key_name })),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: last.created_at_us, id: String(last.id) }) : null,
  };
};
