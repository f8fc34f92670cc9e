import { SourceRateLimitedError, type LookupContext, type LookupResult } from "@/lib/connectors/types";
import type { Operation, PreparedLookup } from "@/lib/operations/define";
import type { Outcome, SettleRequest, Settlement } from "@/lib/credits/settle";
import { describeError, log } from "@/lib/log";
import { rateLimitHeaders, resetSeconds } from "@/lib/ratelimit/headers";
import type { Services } from "@/lib/services";
import { errorBody, successBody } from "./envelope";
import { ApiError, messages } from "./errors";
import { summariseQuery } from "./params";

/**
 * The request pipeline of a lookup, in the order decisions.md fixes:
 * 401 auth → 429 rate limit → 400 params → 402 credits → 404 record → 500 anything else.
 * It knows nothing of Next: /v1 route handlers and the console's server routes both call it.
 */
export type PipelineInput = { authorization: string | null; query: URLSearchParams };

export type PipelineResult = {
  status: number;
  body: string;
  headers: Record<string, string>;
  requestId: string;
  keyId: string | null;
};

const messageFor = (status: Exclude<Settlement["status"], 200>, operation: Operation, badRequest: string | null): string => {
  switch (status) {
    case 400:
      return badRequest ?? messages.internal;
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

export const runLookup = async (
  spec: Operation,
  input: PipelineInput,
  deps: Services,
): Promise<PipelineResult> => {
  const requestId = crypto.randomUUID();
  const startedAt = Date.now();
  const startedPerf = performance.now();
  const costCredits = spec.costCredits;
  const headers: Record<string, string> = { "X-Request-Id": requestId };
  const fail = (code: 401 | 500, message: string, keyId: string | null): PipelineResult => ({
    status: code,
    body: errorBody(code, message, requestId),
    headers,
    requestId,
    keyId,
  });

  let keyId: string | null = null;
  try {
    const auth = await deps.authenticator.authenticate(input.authorization);
    if (!auth.ok) return fail(401, auth.message, null);
    keyId = auth.key.id;

    const rate = await deps.limiter.consume(auth.key.id, auth.key.qpsLimit);
    Object.assign(headers, rateLimitHeaders(rate));

    const base: Omit<SettleRequest, "outcome"> = {
      requestId,
      keyId: auth.key.id,
      operation: spec.id,
      costCredits,
      paramsSummary: summariseQuery(input.query, spec.paramNames),
      startedAt,
      startedPerf,
    };
    let outcome: Outcome;
    let finalStatus: 404 | 429 | 500 | undefined;
    let badRequest: string | null = null;
    let result: LookupResult | null = null;
    // Set when the connector reserved credits before a paid call: the request then ends in
    // commit or refund, or (reservation refused) with the reservation's own answer.
    const reservation: { settlement: Settlement | null } = { settlement: null };
    if (!rate.allowed) {
      outcome = "429";
      headers["Retry-After"] = String(resetSeconds(rate));
    } else {
      let lookup: PreparedLookup | undefined;
      try {
        lookup = spec.prepare(input.query, { cursors: deps.cursors, eventSiteHosts: deps.eventSiteHosts });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        badRequest = error.message;
      }
      if (lookup === undefined) {
        outcome = "400";
      } else {
        const context: LookupContext = {
          keyOwnerId: auth.key.ownerId,
          reserve: async () => {
            const reserved = await deps.settler.settle({ ...base, outcome: "reserve" });
            reservation.settlement = reserved;
            return reserved.status === 200;
          },
        };
        try {
          result = await lookup(deps.connector, context);
          outcome = result.found ? "found" : "not_found";
        } catch (error) {
          if (error instanceof SourceRateLimitedError) {
            outcome = "429";
            headers["Retry-After"] = String(Math.max(1, Math.ceil(error.retryAfterS)));
          } else {
            log.error("lookup failed", { requestId, keyId, operation: spec.id, error: describeError(error) });
            outcome = "500";
          }
        }
        const reserved = reservation.settlement;
        if (reserved !== null) {
          if (reserved.status !== 200) {
            outcome = "reserve";
            result = null;
          } else if (outcome === "found") {
            outcome = "commit";
          } else {
            finalStatus = outcome === "not_found" ? 404 : outcome === "429" ? 429 : 500;
            outcome = "refund";
          }
        }
      }
    }

    const reservedAnswer = reservation.settlement;
    const chargeCredits = result?.found && result.costCredits !== undefined ? result.costCredits : costCredits;
    const settlement =
      outcome === "reserve" && reservedAnswer !== null
        ? reservedAnswer
        : await deps.settler.settle({ ...base, costCredits: chargeCredits, outcome, finalStatus });
    if (result?.found && result.cache) headers["X-Cache"] = result.cache;
    if (settlement.status === 401) {
      deps.authenticator.invalidate(auth.key.id);
      return fail(401, messages.keyInvalid, null);
    }
    headers["X-Credits-Cost"] = String(costCredits);
    headers["X-Credits-Charged"] = String(settlement.creditsCharged);
    headers["X-Credits-Remaining"] = String(settlement.creditsRemaining);
    if (settlement.status === 200 && result?.found) {
      if (result.asOf) headers["X-Data-As-Of"] = result.asOf.toISOString();
      return { status: 200, body: successBody(result.dataJson, requestId), headers, requestId, keyId };
    }
    // A 200 always comes with a found record; anything else is an error envelope.
    const status = settlement.status === 200 ? 500 : settlement.status;
    return {
      status,
      body: errorBody(status, messageFor(status, spec, badRequest), requestId),
      headers,
      requestId,
      keyId,
    };
  } catch (error) {
    log.error("request failed", { requestId, keyId, operation: spec.id, error: describeError(error) });
    return fail(500, messages.internal, keyId);
  }
};
