import type { Queryable } from "@/lib/db/client";
import { paramNamesOf } from "@/lib/operations";

/**
 * A user's recent successful lookups in the console itself, for its "Recent lookups" lists: the
 * usage records of the lookups the console marked as its own (console_lookups) — a script's
 * calls with an API key, or a batch's, are not there, even with the same key. The usage row keeps only a short summary of the query
 * ("event_id=1000000000000001", "url=https://…"; values cut at 120 characters, the whole at 300),
 * so an item whose summary may have been cut is marked `truncated`: it cannot be run again as is.
 */
export type RecentLookup = {
  /** The operation id. */
  operation: string;
  /** The query parameters, as recorded: `{ event_id: "1000000000000001" }`. */
  params: Record<string, string>;
  /** The usage row's params_summary, verbatim. */
  summary: string;
  /** True when a value may have been shortened when recorded. */
  truncated: boolean;
  /** ISO date-time of the newest successful lookup with these parameters. */
  at: string;
};

// summariseQuery (lib/records/params.ts) keeps 120 characters of a value and 300 of the whole.
const MAX_VALUE_LENGTH = 120;
const MAX_SUMMARY_LENGTH = 300;

/** How many of the newest successful rows are looked at: bounds the work for heavy users. */
const SCAN_WINDOW = 1000;

export const MAX_RECENT_LIMIT = 50;

const paramNames = paramNamesOf();
// Values are not escaped in the summary (a url may hold "&"): split only before a known name.
const SEPARATOR = new RegExp(`&(?=(?:${paramNames.join("|")})=)`);

/** "url=https://x/?a=1&b=2" → { url: "https://x/?a=1&b=2" }; unknown or malformed parts are dropped. */
export const parseSummary = (summary: string): Record<string, string> => {
  const params: Record<string, string> = {};
  if (summary === "") return params;
  for (const part of summary.split(SEPARATOR)) {
    const equals = part.indexOf("=");
    if (equals <= 0) continue;
    const name = part.slice(0, equals);
    if (!paramNames.includes(name) || Object.hasOwn(params, name)) continue;
    params[name] = part.slice(equals + 1);
  }
  return params;
};

const mayBeTruncated = (summary: string, params: Record<string, string>): boolean =>
  summary.length >= MAX_SUMMARY_LENGTH || Object.values(params).some((value) => value.length >= MAX_VALUE_LENGTH);

type RecentRow = { operation: string; params_summary: string; at: Date | string };

/** Marks a successful lookup the user ran in the console (by its usage row's request id). */
export const recordConsoleLookup = async (db: Queryable, userId: string, requestId: string): Promise<void> => {
  await db.query("INSERT INTO console_lookups (request_id, user_id) VALUES ($1, $2) ON CONFLICT (request_id) DO NOTHING", [requestId, userId]);
};

/**
 * The newest successful lookups (status 200) of the given operations the user ran in the
 * console, one per distinct operation + parameters, newest first.
 */
export const recentLookups = async (
  db: Queryable,
  userId: string,
  lookupOperations: readonly string[],
  limit: number,
): Promise<RecentLookup[]> => {
  if (lookupOperations.length === 0 || limit <= 0) return [];
  const operationList = lookupOperations.map((_, index) => `$${index + 4}`).join(", ");
  const rows = await db.query<RecentRow>(
    `SELECT operation, params_summary, at FROM (
       SELECT DISTINCT ON (w.operation, w.params_summary) w.operation, w.params_summary, w.created_at AS at, w.id
       FROM (
         SELECT u.id, u.operation, u.params_summary, u.created_at
         FROM console_lookups c JOIN usage_events u ON u.request_id = c.request_id
         WHERE c.user_id = $1 AND u.status = 200 AND u.params_summary <> '' AND u.operation IN (${operationList})
         ORDER BY u.created_at DESC, u.id DESC
         LIMIT $2
       ) w
       ORDER BY w.operation, w.params_summary, w.created_at DESC, w.id DESC
     ) latest
     ORDER BY at DESC, id DESC
     LIMIT $3`,
    [userId, SCAN_WINDOW, Math.min(limit, MAX_RECENT_LIMIT), ...lookupOperations],
  );
  return rows.map((row) => {
    const params = parseSummary(row.params_summary);
    return {
      operation: row.operation,
      params,
      summary: row.params_summary,
      truncated: mayBeTruncated(row.params_summary, params),
      at: new Date(row.at).toISOString(),
    };
  });
};
