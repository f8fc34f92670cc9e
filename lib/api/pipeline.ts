import type { Connector, LookupContext, LookupResult } from "@/lib/connectors/types";
import type { Channel, SettleRequest, Settlement } from "@/lib/credits/settle";
import type { AuthOutcome } from "@/lib/keys/authenticate";
import type { KeyCredentials } from "@/lib/keys/repository";
import { describeError, log } from "@/lib/log";
import type { Operation, PreparedLookup } from "@/lib/operations/define";
import type { Services } from "@/lib/services";
import { admit, type Headers } from "./admit";
import { countLookup, countRefusal, type RecordedLookup, type RefusalReason } from "./lookup-metrics";
import { errorBody, successBody } from "./envelope";
import { messages, v1FailureOf, type ApiErrorCode } from "./errors";
import { summariseQuery } from "@/lib/records/params";

/**
 * The request pipeline of a lookup, in the order docs/decisions.md "Order of checks" fixes:
 * 401 auth → 403 operation/address → 429 rate limit → 400 params → 402 credits → 404 record → 500.
 * It knows nothing of HTTP servers: the /v1 front and the console's lookup route both call it.
 * Every request that gets past authentication is settled exactly once (one usage record).
 */

export type PipelineInput = {
  authorization: string | null;
  query: URLSearchParams;
  channel?: Channel;
  /** The client's address as the front determined it; null for lookups the server makes on a key's behalf (lib/api/admit.ts Call). */
  clientAddress: string | null;
  /** The oldest cached answer the client accepts, in seconds (Cache-Control); 0: fetch fresh. */
  maxAgeS?: number;
  /** `authorization` authenticated a moment ago in the same request (lib/api/admit.ts). */
  authenticated?: AuthOutcome;
  /**
   * The caller counts the lookup (`recorded`, lib/api/lookup-metrics.ts) once it knows whether
   * the answer reached the client: /v1 releases an unanswered one, which makes its record 499.
   */
  countOnDelivery?: boolean;
};

export type PipelineResult = {
  status: number;
  body: string;
  /** A 200's record, as the JSON text `body` holds as its `data` (read without parsing the envelope). */
  dataJson?: string;
  headers: Record<string, string>;
  requestId: string;
  keyId: string | null;
  /** What the usage ledger holds for this lookup; null when it holds nothing (a 401, a settlement that failed). */
  recorded: RecordedLookup | null;
  /** A refusal before any work, counted in refusals_total. */
  refusal: RefusalReason | null;
};

export type PipelineDeps = Pick<Services, "authenticator" | "limiter" | "settler" | "connector" | "cursors" | "eventSiteHosts">;

const reply = (status: ApiErrorCode, message: string, requestId: string, headers: Headers, keyId: string | null): PipelineResult => ({
  status,
  body: errorBody(status, message, requestId),
  headers,
  requestId,
  keyId,
  recorded: null,
  refusal: status === 401 ? "401" : null,
});

/** The one place an unexpected failure becomes `500 Internal server error`, logged with the requestId. */
const internalError = (error: unknown, operation: Operation, requestId: string, headers: Headers, keyId: string | null): PipelineResult => {
  log.error("request failed", { requestId, keyId, operation: operation.id, error: describeError(error) });
  return reply(500, messages.internal, requestId, headers, keyId);
};

/** `refusal`: the sentence of a 400 (which parameter) or a 403 (which rule). */
const messageFor = (status: Exclude<Settlement["status"], 200>, operation: Operation, refusal: string | null): string => {
  switch (status) {
    case 400:
    case 403:
      return refusal ?? messages.internal;
    case 401:
      return messages.keyInvalid;
    case 402:
      return messages.quota;
    case 404:
      return operation.notFoundMessage;
    case 429:
      return messages.qps;
    default:
      return messages.internal;
  }
};

/** The query read into a lookup, or the contract's 400 sentence. Other failures are not the caller's: they throw. */
const prepare = (
  operation: Operation,
  query: URLSearchParams,
  deps: PipelineDeps,
): { ok: true; lookup: PreparedLookup } | { ok: false; message: string } => {
  try {
    return { ok: true, lookup: operation.prepare(query, { cursors: deps.cursors, eventSiteHosts: deps.eventSiteHosts }) };
  } catch (error) {
    const failure = v1FailureOf(error);
    if (failure?.status === 400) return { ok: false, message: failure.message };
    throw error;
  }
};

/** What the data source answered, before any credit moves. */
type Answer =
  | { kind: "answered"; result: LookupResult }
  | { kind: "source_rate_limited"; retryAfterS: number }
  | { kind: "failed" };

const ask = async (lookup: PreparedLookup, connector: Connector, context: LookupContext, where: Record<string, unknown>): Promise<Answer> => {
  try {
    return { kind: "answered", result: await lookup(connector, context) };
  } catch (error) {
    const failure = v1FailureOf(error);
    if (failure?.status === 429 && failure.retryAfterS !== undefined) return { kind: "source_rate_limited", retryAfterS: failure.retryAfterS };
    log.error("lookup failed", { ...where, error: describeError(error) });
    return { kind: "failed" };
  }
};

const outcomeOf = (answer: Answer): "found" | "not_found" | "429" | "500" => {
  if (answer.kind === "source_rate_limited") return "429";
  if (answer.kind === "failed") return "500";
  return answer.result.found ? "found" : "not_found";
};

const REFUND_STATUS = { not_found: 404, "429": 429, "500": 500 } as const;

/**
 * A connector about to spend money (an upstream call) reserves the cost first; the request then
 * ends in commit (found) or refund (anything else), or with the refused reservation's own answer.
 */
const reservation = (settle: () => Promise<Settlement>) => {
  const made: Settlement[] = [];
  return {
    reserve: async () => {
      const reserved = await settle();
      made.push(reserved);
      return reserved.status === 200;
    },
    settlement: (): Settlement | null => made.at(-1) ?? null,
  };
};

type Admitted = {
  channel: Channel;
  operation: Operation;
  input: PipelineInput;
  deps: PipelineDeps;
  requestId: string;
  key: KeyCredentials;
  headers: Headers;
  settle: (request: Pick<SettleRequest, "outcome"> & Partial<SettleRequest>) => Promise<Settlement>;
};

/** A cached answer's age in whole seconds (RFC 9111 §5.1), beside X-Data-As-Of. */
const ageHeader = (result: Extract<LookupResult, { found: true }>): Headers =>
  result.cache === "hit" && result.asOf ? { Age: String(Math.max(0, Math.floor((Date.now() - result.asOf.getTime()) / 1000))) } : {};

/** Refusals before any work; a 429 of the data source (after work) is no refusal of the key's. */
const refusalOf = (status: Settlement["status"], sourceAnswered: boolean): RefusalReason | null => {
  if (status === 401 || status === 402 || status === 403) return String(status) as RefusalReason;
  return status === 429 && !sourceAnswered ? "429" : null;
};

/** What the ledger holds once this settlement is written: its status, a charge only with a 200, its latency. */
const recordedOf = (admitted: Admitted, settlement: Settlement): RecordedLookup => ({
  channel: admitted.channel,
  operation: admitted.operation.id,
  status: settlement.status,
  creditsCharged: settlement.status === 200 ? settlement.creditsCharged : 0,
  latencyMs: settlement.latencyMs,
});

/** The settled answer as it goes out: credit headers, then the record or the error envelope. */
const finish = (
  admitted: Admitted,
  settlement: Settlement,
  headers: Headers,
  result: LookupResult | null,
  badRequest: string | null,
  sourceAnswered = false,
): PipelineResult => {
  const answer = answerOf(admitted, settlement, headers, result, badRequest);
  // A 401 of settlement (the key went away) writes no usage record.
  const recorded = settlement.status === 401 ? null : recordedOf(admitted, settlement);
  return { ...answer, recorded, refusal: refusalOf(settlement.status, sourceAnswered) };
};

const answerOf = (
  admitted: Admitted,
  settlement: Settlement,
  headers: Headers,
  result: LookupResult | null,
  badRequest: string | null,
): PipelineResult => {
  const { operation, requestId, key } = admitted;
  const cached = result?.found && result.cache ? { ...headers, "X-Cache": result.cache } : headers;
  if (settlement.status === 401) {
    // The key went away between authentication and settlement (revoked, expired, owner disabled).
    admitted.deps.authenticator.invalidate(key.id);
    return reply(401, messages.keyInvalid, requestId, cached, null);
  }
  const charged: Headers = {
    ...cached,
    "X-Credits-Cost": String(operation.costCredits),
    "X-Credits-Charged": String(settlement.creditsCharged),
    "X-Credits-Remaining": String(settlement.creditsRemaining),
  };
  if (settlement.status === 200 && result?.found) {
    const withAsOf = result.asOf ? { ...charged, "X-Data-As-Of": result.asOf.toISOString(), ...ageHeader(result) } : charged;
    return {
      status: 200,
      body: successBody(result.dataJson, requestId),
      dataJson: result.dataJson,
      headers: withAsOf,
      requestId,
      keyId: key.id,
      recorded: null,
      refusal: null,
    };
  }
  // A 200 always comes with a found record; anything else is an error envelope.
  const status = settlement.status === 200 ? 500 : settlement.status;
  return reply(status, messageFor(status, operation, badRequest), requestId, charged, key.id);
};

/** 400 → look up → 402/404/429/500 or 200: everything after the key, its access and its rate were checked. */
const lookupAdmitted = async (admitted: Admitted, forbidden: string | null, rateLimited: boolean): Promise<PipelineResult> => {
  const { operation, input, deps, requestId, key, headers, settle } = admitted;
  // Written like the other free refusals: one usage row, nothing charged.
  if (forbidden !== null) return finish(admitted, await settle({ outcome: "403" }), headers, null, forbidden);
  if (rateLimited) return finish(admitted, await settle({ outcome: "429" }), headers, null, null);

  const prepared = prepare(operation, input.query, deps);
  if (!prepared.ok) return finish(admitted, await settle({ outcome: "400" }), headers, null, prepared.message);

  const reserved = reservation(() => settle({ outcome: "reserve" }));
  const answer = await ask(
    prepared.lookup,
    deps.connector,
    { keyOwnerId: key.ownerId, reserve: reserved.reserve, maxAgeS: input.maxAgeS },
    { requestId, keyId: key.id, operation: operation.id },
  );
  const answerHeaders =
    answer.kind === "source_rate_limited"
      ? { ...headers, "Retry-After": String(Math.max(1, Math.ceil(answer.retryAfterS))) }
      : headers;
  const reservedSettlement = reserved.settlement();
  if (reservedSettlement !== null && reservedSettlement.status !== 200) {
    return finish(admitted, reservedSettlement, answerHeaders, null, null);
  }

  const result = answer.kind === "answered" ? answer.result : null;
  const outcome = outcomeOf(answer);
  // A connector may charge less than the operation's cost (a free cache hit).
  const costCredits = result?.found && result.costCredits !== undefined ? result.costCredits : operation.costCredits;
  const request: Pick<SettleRequest, "outcome" | "costCredits" | "finalStatus"> =
    reservedSettlement === null
      ? { outcome, costCredits }
      : outcome === "found"
        ? { outcome: "commit", costCredits }
        : { outcome: "refund", costCredits, finalStatus: REFUND_STATUS[outcome] };
  try {
    return finish(admitted, await settle(request), answerHeaders, result, null, answer.kind === "source_rate_limited");
  } catch (error) {
    // A reservation's record exists already; unfinalised, it ends as an uncharged 500 (voided or swept).
    const failed = internalError(error, operation, requestId, answerHeaders, key.id);
    if (reservedSettlement === null) return failed;
    return { ...failed, recorded: { ...recordedOf(admitted, reservedSettlement), status: 500, creditsCharged: 0 } };
  }
};

const lookup = async (operation: Operation, input: PipelineInput, deps: PipelineDeps): Promise<PipelineResult> => {
  const requestId = crypto.randomUUID();
  const startedAt = Date.now();
  const startedPerf = performance.now();

  const call = { operationId: operation.id, clientAddress: input.clientAddress, startedAt };
  const admitted = await admit(input.authorization, requestId, deps, call, input.authenticated).then(
    (admission) => ({ ok: true as const, admission }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (!admitted.ok) return internalError(admitted.error, operation, requestId, { "X-Request-Id": requestId }, null);
  const { admission } = admitted;
  if (admission.kind === "unauthenticated") return reply(401, admission.message, requestId, admission.headers, null);

  const { key, headers } = admission;
  const base: Omit<SettleRequest, "outcome"> = {
    requestId,
    keyId: key.id,
    operation: operation.id,
    costCredits: operation.costCredits,
    paramsSummary: summariseQuery(input.query, operation.params.map((param) => param.name)),
    startedAt,
    startedPerf,
    channel: input.channel,
  };
  const settle = (request: Pick<SettleRequest, "outcome"> & Partial<SettleRequest>) => deps.settler.settle({ ...base, ...request });
  try {
    const forbidden = admission.kind === "forbidden" ? admission.message : null;
    const admittedLookup = { channel: input.channel ?? "api", operation, input, deps, requestId, key, headers, settle } as const;
    return await lookupAdmitted(admittedLookup, forbidden, admission.kind === "rate_limited");
  } catch (error) {
    return internalError(error, operation, requestId, headers, key.id);
  }
};

/** Counts the lookup into the metrics (lib/api/lookup-metrics.ts) unless its caller counts it on delivery. */
export const runLookup = async (operation: Operation, input: PipelineInput, deps: PipelineDeps): Promise<PipelineResult> => {
  const result = await lookup(operation, input, deps);
  const channel = input.channel ?? "api";
  if (result.refusal !== null) countRefusal(channel, result.refusal);
  if (result.recorded !== null && input.countOnDelivery !== true) countLookup(result.recorded);
  return result;
};
