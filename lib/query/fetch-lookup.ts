import type { QueryClient } from "@tanstack/react-query";
import type { OperationDescriptor } from "@/lib/operations/descriptor";
import { recordLastLookup } from "./last-lookup";
import { codeForConsoleRefusal, codeForStatus, LookupError, parseParamProblem, SPENDING_LIMITS, type SpendingLimit } from "./lookup-error";
import { refreshMeter, updateMeterCredits } from "./meter";
import { recentLookupsKey } from "./recent-lookups";

/**
 * The browser's client for console lookups (GET /api/console/lookup/<operation>): the /v1
 * envelope in, a typed success or a thrown LookupError out. Every answer — success or failure —
 * carries the key's balance in X-Credits-Remaining; fetchLookup writes it into the ["meter"]
 * query so the credit meter follows each lookup without a refetch, and records the last
 * lookup's charge for the meter's "last lookup" line.
 *
 * Call it from a query function with the operation's descriptor, the type of its data and the
 * query context:
 *   queryFn: (context) => fetchLookup<EventData>(eventDetailsIdOperation, { event_id }, context)
 */

/** Query parameters as /v1 takes them; undefined ones are left out. */
export type LookupParams = Record<string, string | number | undefined>;

export type LookupSuccess<Data> = {
  ok: true;
  operation: string;
  data: Data;
  requestId: string;
  costCredits: number;
  creditsCharged: number;
  /** The key's balance after this lookup; null only if the server sent no header. */
  creditsRemaining: number | null;
  /** Date.now() when the answer arrived. */
  receivedAt: number;
};

/** What a query function hands the client: the query cache, and the signal when aborting is safe. */
export type LookupQueryContext = { client: QueryClient; signal?: AbortSignal };

export const lookupUrl = (operationId: string, params: LookupParams): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const query = search.toString();
  return `/api/console/lookup/${operationId}${query ? `?${query}` : ""}`;
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

/** A console 402's `limit` (lib/console-api/lookup.ts): which spending limit ran out, and the console's sentence. */
const spendingLimit = (body: unknown): { by: SpendingLimit; message: string } | null => {
  if (typeof body !== "object" || body === null || !("limit" in body)) return null;
  const limit = body.limit;
  if (typeof limit !== "object" || limit === null || !("by" in limit) || !("message" in limit)) return null;
  const by = SPENDING_LIMITS.find((name) => name === limit.by);
  return by !== undefined && typeof limit.message === "string" ? { by, message: limit.message } : null;
};

const numberHeader = (headers: Headers, name: string): number | undefined => {
  const value = headers.get(name);
  if (value === null || value.trim() === "") return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
};

export const fetchLookup = async <Data>(
  operation: Pick<OperationDescriptor, "id" | "costCredits">,
  params: LookupParams,
  { client, signal }: LookupQueryContext,
): Promise<LookupSuccess<Data>> => {
  let response: Response;
  try {
    response = await fetch(lookupUrl(operation.id, params), {
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
      operation: operation.id,
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
  recordLastLookup(client, { operation: operation.id, status: response.status, creditsCharged, at: Date.now() });

  if (response.ok && isEnvelope(body) && body.code === 0) {
    void client.invalidateQueries({ queryKey: recentLookupsKey });
    return {
      ok: true,
      operation: operation.id,
      // The console API answers exactly the /v1 envelope of this operation: its data is the operation's record.
      data: body.data as Data,
      requestId: requestId ?? "",
      costCredits: operation.costCredits,
      creditsCharged,
      creditsRemaining: creditsRemaining ?? null,
      receivedAt: Date.now(),
    };
  }

  const fromConsole = isEnvelope(body) ? null : consoleError(body);
  if (fromConsole) {
    // The console API itself refused: signed out, no console key, unknown operation.
    if (response.status === 409 || fromConsole.code === "no_console_key") void refreshMeter(client);
    throw new LookupError({
      operation: operation.id,
      status: response.status,
      code: codeForConsoleRefusal(response.status, fromConsole.code),
      message: fromConsole.message || `The server answered ${response.status}.`,
      creditsCharged: 0,
    });
  }

  const limit = response.status === 402 ? spendingLimit(body) : null;
  const message = limit?.message ?? (isEnvelope(body) ? body.message : `The server answered ${response.status}.`);
  const code = codeForStatus(response.status);
  // A key that stopped working (revoked, expired) may no longer be the console key; a limit that ran out changes what is spendable.
  if (code === "key_rejected" || limit !== null) void refreshMeter(client);
  const problem = code === "bad_request" ? parseParamProblem(message) : null;
  throw new LookupError({
    operation: operation.id,
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
    limitedBy: limit?.by,
  });
};
