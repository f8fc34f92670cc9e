import { z } from "zod";
import { registry } from "@/lib/operations";
import type { ConsoleContext } from "./handler";
import { limitParam } from "./query";
import { DomainError } from "@/lib/errors";
import { principalOf } from "@/lib/keys/view";
import { log } from "@/lib/log";
import { UTF8_BOM } from "@/lib/export/bom";
import { dailyCsv, eventsCsv } from "@/lib/usage/csv";
import { membersCsv } from "@/lib/usage/members-csv";
import { listEvents, UUID_PATTERN, type EventFilters, type EventsPage, type StatusFilter } from "@/lib/usage/events";
import { addDays, dayCount, dayStart, isDay, isSupportedDay, isSupportedTime, SUPPORTED_DAYS, utcDay, type Day } from "@/lib/usage/period";
import { resolveScope, type ResolvedScope } from "@/lib/usage/scope";
import { GROUP_BYS, summary, type GroupBy, type UsageSummary } from "@/lib/usage/summary";

/**
 * The console JSON API of usage (/api/usage/*): query parameters → scope, range and filters,
 * then lib/usage. Shared by the three route handlers so they read the same parameters the same
 * way. Parameters:
 *
 *   keyId      one key (404 when the caller may not see it)
 *   userId     admins: that user's keys (analysts: only their own id, else 403)
 *   workspaceId every key of that workspace, for its members of any role (404 for anyone else);
 *              with userId: the keys that member made there; with keyId: a key of it
 *   scope      "mine" (default) | "all" (admins: every key)
 *   from, to   UTC days "YYYY-MM-DD" (both included) or ISO-8601 date-times, within
 *              2000-01-01 … 2999-12-31 (lib/usage/period.ts); summary and daily
 *              export use the days (default: the last 7 days, today included; at most 366),
 *              the log uses from ≤ created_at < to (a day as `to` includes that whole day)
 *   operation  an operation id of the registry (lib/operations)
 *   status     an exact status (200, 402, …) or a class (2xx, 4xx, 5xx)
 *   requestId  exact request id (UUID)            [log, events export]
 *   groupBy    day,operation,key,member (list)    [summary; default day]
 *   cursor     nextCursor of the previous page    [log]
 *   limit      1–200, default 50                  [log]
 *   kind       events | daily | members           [export]
 */
type Context = Pick<ConsoleContext<undefined>, "db" | "user" | "ip" | "query">;

export const MAX_RANGE_DAYS = 366;
export const MAX_LOG_LIMIT = 200;

const badRequest = (message: string) => new DomainError("invalid_request", message);

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

const isDateTime = (value: string): boolean => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));

const timeOrDay = (name: string) =>
  z
    .string()
    .trim()
    .refine((value) => isDay(value) || isDateTime(value), {
      message: `${name} must be a day (YYYY-MM-DD) or an ISO-8601 date-time.`,
      abort: true,
    })
    // Outside it, day arithmetic would leave four-digit years (lib/usage/period.ts).
    .refine((value) => (isDay(value) ? isSupportedDay(value) : isSupportedTime(new Date(value))), {
      message: `${name} must lie within ${SUPPORTED_DAYS} (UTC), the days this service keeps usage for.`,
    })
    .optional();

const statusFilter = z
  .string()
  .trim()
  .regex(/^([1-5]\d\d|[245]xx)$/, "status must be a status code (e.g. 402) or a class (2xx, 4xx, 5xx).")
  .transform((value): StatusFilter => (value.endsWith("xx") ? (value as "2xx" | "4xx" | "5xx") : Number(value)))
  .optional();

const operationIds = registry.map((operation) => operation.id);
const CHANNELS = ["api", "console", "batch", "mcp"] as const;

const querySchema = z.object({
  keyId: z.string().trim().min(1).max(100).optional(),
  userId: z.string().trim().min(1).max(100).optional(),
  workspaceId: z.string().trim().min(1).max(100).optional(),
  scope: z.enum(["mine", "all"], { error: "scope must be mine or all." }).default("mine"),
  from: timeOrDay("from"),
  to: timeOrDay("to"),
  operation: z.enum(operationIds, { error: `operation must be one of ${operationIds.join(", ")}.` }).optional(),
  status: statusFilter,
  channel: z.enum(CHANNELS, { error: `channel must be one of ${CHANNELS.join(", ")}.` }).optional(),
  requestId: z.string().trim().regex(UUID_PATTERN, "requestId must be a request id (a UUID).").optional(),
  groupBy: z
    .string()
    .trim()
    .transform((value) => value.split(",").map((part) => part.trim()).filter((part) => part !== ""))
    .refine((parts) => parts.every((part) => (GROUP_BYS as readonly string[]).includes(part)), {
      message: "groupBy must list day, operation, key and/or member.",
    })
    .transform((parts) => parts as GroupBy[])
    .optional(),
  cursor: z.string().trim().min(1).max(400).optional(),
  limit: limitParam(MAX_LOG_LIMIT, 50),
  kind: z.enum(["events", "daily", "members"], { error: "kind must be events, daily or members." }).default("events"),
});

type UsageQuery = z.infer<typeof querySchema>;

export const parseUsageQuery = (query: URLSearchParams): UsageQuery => {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(querySchema.shape)) {
    const value = query.get(name);
    if (value !== null && value.trim() !== "") raw[name] = value;
  }
  const parsed = querySchema.safeParse(raw);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? "Invalid query.");
  return parsed.data;
};

/** The days a summary covers: explicit, or the last 7 days (today included). */
export const dayRange = (query: Pick<UsageQuery, "from" | "to">, now = new Date()): { from: Day; to: Day } => {
  const asDay = (value: string) => (isDay(value) ? value : utcDay(new Date(value)));
  const to = query.to !== undefined ? asDay(query.to) : utcDay(now);
  const from = query.from !== undefined ? asDay(query.from) : addDays(to, -6);
  if (from > to) throw badRequest("from must not be after to.");
  if (dayCount(from, to) > MAX_RANGE_DAYS) throw badRequest(`A range covers at most ${MAX_RANGE_DAYS} days.`);
  return { from, to };
};

/** The log's time bounds: from inclusive, to exclusive; a day as `to` takes in the whole day. */
export const timeRange = (query: Pick<UsageQuery, "from" | "to">): { from?: Date; to?: Date } => {
  const from = query.from === undefined ? undefined : isDay(query.from) ? dayStart(query.from) : new Date(query.from);
  const to = query.to === undefined ? undefined : isDay(query.to) ? dayStart(addDays(query.to, 1)) : new Date(query.to);
  if (from && to && from > to) throw badRequest("from must not be after to.");
  return { from, to };
};

export const usageScope = (context: Context, query: UsageQuery): Promise<ResolvedScope> =>
  resolveScope(context.db, principalOf(context.user, context.ip), {
    keyId: query.keyId,
    userId: query.userId,
    everyone: query.scope === "all",
    workspaceId: query.workspaceId,
  });

const eventFilters = (query: UsageQuery): EventFilters => ({
  ...timeRange(query),
  operation: query.operation,
  status: query.status,
  channel: query.channel,
  requestId: query.requestId,
});

export type ScopeView = Omit<ResolvedScope, "scope"> & { keyIds: string[] | null };

const scopeView = (resolved: ResolvedScope): ScopeView => ({
  kind: resolved.kind,
  keyId: resolved.keyId,
  userId: resolved.userId,
  workspaceId: resolved.workspaceId,
  keyIds: resolved.scope.kind === "all" ? null : [...resolved.scope.keyIds],
});

export type SummaryResponse = UsageSummary & { scope: ScopeView; groupBy: GroupBy[] };

/** GET /api/usage/summary */
export const summaryResponse = async (context: Context): Promise<SummaryResponse> => {
  const query = parseUsageQuery(context.query);
  const resolved = await usageScope(context, query);
  const groupBy = query.groupBy && query.groupBy.length > 0 ? query.groupBy : (["day"] satisfies GroupBy[]);
  const result = await summary(context.db, resolved.scope, { ...dayRange(query), groupBy });
  return { scope: scopeView(resolved), groupBy, ...result };
};

export type EventsResponse = EventsPage & { scope: ScopeView };

/** GET /api/usage/events */
export const eventsResponse = async (context: Context): Promise<EventsResponse> => {
  const query = parseUsageQuery(context.query);
  const resolved = await usageScope(context, query);
  const page = await listEvents(context.db, resolved.scope, eventFilters(query), { cursor: query.cursor, limit: query.limit });
  return { scope: scopeView(resolved), ...page };
};

/** GET /api/usage/export: a streamed CSV attachment. */
export const exportResponse = async (context: Context): Promise<Response> => {
  const query = parseUsageQuery(context.query);
  const resolved = await usageScope(context, query);
  const onError = (error: unknown) => log.error("usage export failed", { userId: context.user.id, kind: query.kind, err: error });
  // A file handed to people: Excel reads it as UTF-8 only after a byte-order mark (key names, inputs).
  const csvOptions = { onError, leading: UTF8_BOM };
  let body: ReadableStream<Uint8Array>;
  let filename: string;
  if (query.kind === "members") {
    const range = dayRange(query);
    const byMember = await summary(context.db, resolved.scope, { ...range, groupBy: ["member"] });
    body = membersCsv(byMember.groups.member ?? [], range, csvOptions);
    filename = `usage-members-${range.from}-to-${range.to}.csv`;
  } else if (query.kind === "daily") {
    const range = dayRange(query);
    body = dailyCsv(context.db.longReads, resolved.scope, { ...range, operation: query.operation, status: query.status }, csvOptions);
    filename = `usage-daily-${range.from}-to-${range.to}.csv`;
  } else {
    const filters = eventFilters(query);
    body = eventsCsv(context.db.longReads, resolved.scope, filters, csvOptions);
    filename = `usage-events-${query.from?.slice(0, 10) ?? "start"}-to-${query.to?.slice(0, 10) ?? utcDay(new Date())}.csv`;
  }
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${filename}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
};
