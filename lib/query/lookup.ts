import { queryOptions, type QueryClient } from "@tanstack/react-query";
import { operations, type OperationName } from "@/lib/api/operations";
import type { EventRecord, FollowersData, PublicationsData } from "@/lib/api/records";
import type { RecentLookup } from "@/lib/usage/recent";
import { fetchJson } from "./fetch-json";
import { refreshMeter, updateMeterCredits } from "./meter";

/**
 * The browser's client for console lookups (GET /api/console/lookup/<operation>): the /v1
 * envelope in, a typed success or a thrown LookupError out. Every answer — success or failure —
 * carries the key's balance in X-Credits-Remaining; runLookup writes it into the ["meter"] query
 * so the credit meter follows each lookup without a refetch, and records the last lookup's
 * charge for the meter's "last lookup" line.
 *
 * Call it from a query function and hand it the query context (it needs `client` and `signal`):
 *   queryFn: (context) => runLookup("event_details_id", { event_id }, context)
 */
export type { OperationName, RecentLookup };

export type EventData = { event: EventRecord };

/** What `data` holds for each operation (lookup-api-v1.md §4). */
export type LookupData = {
  event_details: EventData;
  event_details_id: EventData;
  followers: FollowersData;
  get_user_publications: PublicationsData;
};

/** Query parameters as /v1 takes them; undefined ones are left out. */
export type LookupParams = Record<string, string | number | undefined>;

export type LookupSuccess<Data> = {
  ok: true;
  operation: OperationName;
  data: Data;
  requestId: string;
  costCredits: number;
  creditsCharged: number;
  /** The key's balance after this lookup; null only if the server sent no header. */
  creditsRemaining: number | null;
  /** Date.now() when the answer arrived. */
  receivedAt: number;
};

export type LookupErrorCode =
  | "bad_request"
  | "signed_out"
  | "key_rejected"
  | "out_of_credits"
  | "not_found"
  | "rate_limited"
  | "server_error"
  | "no_console_key"
  | "no_provider_key"
  | "network_error";

export type LookupErrorInit = {
  operation: OperationName;
  /** HTTP status; 0 when the server could not be reached. */
  status: number;
  code: LookupErrorCode;
  message: string;
  requestId?: string;
  /** 429: seconds to wait before the next try. */
  retryAfterS?: number;
  /** 400: the query parameter at fault, e.g. "url". */
  field?: string;
  fieldProblem?: "missing" | "invalid";
  /** What the failed lookup cost: 0 for every failure the server answered (contract §7). */
  creditsCharged: number;
  creditsRemaining?: number;
};

export class LookupError extends Error {
  readonly operation: OperationName;
  readonly status: number;
  readonly code: LookupErrorCode;
  readonly requestId: string | undefined;
  readonly retryAfterS: number | undefined;
  readonly field: string | undefined;
  readonly fieldProblem: "missing" | "invalid" | undefined;
  readonly creditsCharged: number;
  readonly creditsRemaining: number | undefined;

  constructor(init: LookupErrorInit) {
    super(init.message);
    this.name = "LookupError";
    this.operation = init.operation;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfterS = init.retryAfterS;
    this.field = init.field;
    this.fieldProblem = init.fieldProblem;
    this.creditsCharged = init.creditsCharged;
    this.creditsRemaining = init.creditsRemaining;
  }
}

export const isLookupError = (error: unknown): error is LookupError => error instanceof LookupError;

/** The last lookup's charge, for the meter ("−4 credits" / "failed — nothing charged"). */
export type LastLookup = {
  operation: OperationName;
  status: number;
  creditsCharged: number;
  at: number;
};

const lastLookupKey = ["last-lookup"] as const;
const recentLookupsKey = ["recent-lookups"] as const;

/** Written by runLookup; the query function only hands back what is already cached. */
export const lastLookupQuery = () =>
  queryOptions({
    queryKey: lastLookupKey,
    queryFn: ({ client }): LastLookup | null => client.getQueryData<LastLookup | null>(lastLookupKey) ?? null,
    staleTime: Infinity,
    gcTime: Infinity,
  });

export type LookupContext = { client: QueryClient; signal?: AbortSignal };

export const lookupUrl = (operation: OperationName, params: LookupParams): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const query = search.toString();
  return `/api/console/lookup/${operation}${query ? `?${query}` : ""}`;
};

type Envelope = { code: number; message: string; data: unknown; requestId: string };

const readBody = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

const isEnvelope = (body: unknown): body is Envelope =>
  typeof body === "object" &&
  body !== null &&
  "code" in body &&
  typeof body.code === "number" &&
  "message" in body &&
  typeof body.message === "string" &&
  "data" in body;

/** The console API's own errors (409, 401 when signed out): `{error: {code, message}}`. */
const consoleError = (body: unknown): { code: string; message: string } | null => {
  if (typeof body !== "object" || body === null || !("error" in body)) return null;
  const error = body.error;
  if (typeof error !== "object" || error === null) return null;
  return {
    code: "code" in error && typeof error.code === "string" ? error.code : "",
    message: "message" in error && typeof error.message === "string" ? error.message : "",
  };
};

const numberHeader = (headers: Headers, name: string): number | undefined => {
  const value = headers.get(name);
  if (value === null || value.trim() === "") return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
};

const PARAM_PROBLEM = /^(Missing required parameter|Invalid parameter): ([A-Za-z_]+)$/;

/** "Missing required parameter: url" → { field: "url", problem: "missing" }. */
export const parseParamProblem = (message: string): { field: string; problem: "missing" | "invalid" } | null => {
  const match = PARAM_PROBLEM.exec(message.trim());
  if (!match?.[2]) return null;
  return { field: match[2], problem: match[1] === "Invalid parameter" ? "invalid" : "missing" };
};

const codeForStatus = (status: number): LookupErrorCode => {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "key_rejected";
    case 402:
      return "out_of_credits";
    case 404:
      return "not_found";
    case 429:
      return "rate_limited";
    default:
      return "server_error";
  }
};

const recordLastLookup = (client: QueryClient, lastLookup: LastLookup) => {
  client.setQueryData(lastLookupKey, lastLookup);
};

export const runLookup = async <Operation extends OperationName>(
  operation: Operation,
  params: LookupParams,
  { client, signal }: LookupContext,
): Promise<LookupSuccess<LookupData[Operation]>> => {
  const costCredits = operations[operation].costCredits;
  let response: Response;
  try {
    response = await fetch(lookupUrl(operation, params), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      cache: "no-store",
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    // The lookup may have run before the connection broke: read the balance again.
    void refreshMeter(client);
    throw new LookupError({
      operation,
      status: 0,
      code: "network_error",
      message: "Could not reach the server.",
      creditsCharged: 0,
    });
  }

  const body = readBody(await response.text());
  const requestId = isEnvelope(body) && typeof body.requestId === "string" ? body.requestId : undefined;
  const creditsCharged = numberHeader(response.headers, "X-Credits-Charged") ?? 0;
  const creditsRemaining = numberHeader(response.headers, "X-Credits-Remaining");
  if (creditsRemaining !== undefined) updateMeterCredits(client, creditsRemaining);
  recordLastLookup(client, { operation, status: response.status, creditsCharged, at: Date.now() });

  if (response.ok && isEnvelope(body) && body.code === 0) {
    void client.invalidateQueries({ queryKey: recentLookupsKey });
    return {
      ok: true,
      operation,
      // The console API answers exactly the /v1 envelope of this operation: its data is typed by the contract.
      data: body.data as LookupData[Operation],
      requestId: requestId ?? "",
      costCredits,
      creditsCharged,
      creditsRemaining: creditsRemaining ?? null,
      receivedAt: Date.now(),
    };
  }

  const fromConsole = isEnvelope(body) ? null : consoleError(body);
  if (fromConsole) {
    // The console API itself refused: signed out, no console key, unknown operation.
    if (response.status === 409 || fromConsole.code === "no_console_key") void refreshMeter(client);
    const code: LookupErrorCode =
      response.status === 401
        ? "signed_out"
        : response.status === 409
          ? fromConsole.code === "no_provider_key"
            ? "no_provider_key"
            : "no_console_key"
          : response.status === 404
            ? "not_found"
            : codeForStatus(response.status);
    throw new LookupError({
      operation,
      status: response.status,
      code,
      message: fromConsole.message || `The server answered ${response.status}.`,
      creditsCharged: 0,
    });
  }

  const message = isEnvelope(body) ? body.message : `The server answered ${response.status}.`;
  const code = codeForStatus(response.status);
  // A key that stopped working (revoked, expired) may no longer be the console key.
  if (code === "key_rejected") void refreshMeter(client);
  const problem = code === "bad_request" ? parseParamProblem(message) : null;
  throw new LookupError({
    operation,
    status: response.status,
    code,
    message,
    requestId,
    retryAfterS:
      code === "rate_limited"
        ? Math.max(1, Math.ceil(numberHeader(response.headers, "Retry-After") ?? numberHeader(response.headers, "RateLimit-Reset") ?? 1))
        : undefined,
    field: problem?.field,
    fieldProblem: problem?.problem,
    creditsCharged,
    creditsRemaining,
  });
};

export type LookupSubject = "event" | "user" | "profile";

const fieldLabels: Record<string, string> = {
  url: "event URL",
  event_id: "event id",
  userid: "user id",
  node_id: "node id",
  cursor: "cursor",
  urn: "profile URN",
  page: "page number",
};

const fieldRules: Record<string, string> = {
  url: "use the address of an event page, https://<event site>/events/<id>/.",
  event_id: "use digits only (up to 20).",
  userid: "use digits only (up to 20).",
  node_id: "use the node id from an earlier page.",
  cursor: "use the cursor from the previous page.",
  urn: "use a profile URN such as urn:li:member:3000000001.",
  page: "use a whole number from 1.",
};

/** "event URL" for "url": the words a 400 highlights. */
export const fieldLabel = (field: string): string => fieldLabels[field] ?? field;

/** The human sentence for a failed lookup (issue 5 "States"). */
export const lookupErrorText = (error: unknown, what: LookupSubject): string => {
  if (!isLookupError(error)) return "Something went wrong. Try again.";
  switch (error.code) {
    case "out_of_credits":
      return "This key is out of credits.";
    case "rate_limited":
      return `Too many requests — retry in ${error.retryAfterS ?? 1} s.`;
    case "not_found":
      return `No such ${what}.`;
    case "bad_request": {
      if (!error.field) return `Check the input: ${error.message}`;
      const rule = error.fieldProblem === "missing" ? "it is required." : (fieldRules[error.field] ?? "this value is not accepted.");
      return `Check the ${fieldLabel(error.field)}: ${rule}`;
    }
    case "no_console_key":
      return "Choose a console key on the Keys page first.";
    case "no_provider_key":
      return "Add your provider key first: lookups go to the provider with your own key.";
    case "key_rejected":
      return "The console key was rejected (revoked or expired). Choose another on the Keys page.";
    case "signed_out":
      return "Your session has ended. Sign in again.";
    case "network_error":
      return "Could not reach the server. Check your connection and try again.";
    case "server_error":
      return "Something went wrong on our side — nothing was charged. Try again.";
  }
};

/** Where the user can fix the problem, if anywhere but this form. */
export const lookupErrorAction = (error: unknown): { href: string; label: string } | null => {
  if (!isLookupError(error)) return null;
  switch (error.code) {
    case "out_of_credits":
    case "no_console_key":
    case "key_rejected":
      return { href: "/keys", label: "Go to Keys" };
    case "no_provider_key":
      return { href: "/account/provider-key", label: "Add provider key" };
    case "signed_out":
      return { href: "/signin", label: "Sign in" };
    default:
      return null;
  }
};

/** True when the server answered and charged nothing — every failure the pipeline settles. */
export const chargedNothing = (error: unknown): boolean =>
  isLookupError(error) && error.status !== 0 && error.creditsCharged === 0;

/* Recent lookups (GET /api/console/recent) — successful lookups of the user's keys, newest first. */

export const recentLookupsQuery = (lookupOperations: readonly OperationName[], limit = 10) =>
  queryOptions({
    queryKey: [...recentLookupsKey, [...lookupOperations].sort().join(","), limit] as const,
    queryFn: async ({ signal }) => {
      const search = new URLSearchParams({ operations: lookupOperations.join(","), limit: String(limit) });
      return (await fetchJson<{ items: RecentLookup[] }>(`/api/console/recent?${search.toString()}`, { signal })).items;
    },
    staleTime: 30_000,
  });
