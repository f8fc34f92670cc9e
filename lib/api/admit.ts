import { accessRefusal } from "@/lib/keys/access";
import type { AuthOutcome, Authenticator } from "@/lib/keys/authenticate";
import type { KeyCredentials } from "@/lib/keys/repository";
import { rateLimitHeaders, resetSeconds } from "@/lib/ratelimit/headers";
import type { RateLimiter } from "@/lib/ratelimit/limiter";
import { accessMessages, authMessages } from "./errors";

/**
 * The first checks of every authenticated /v1 request (lookups and /v1/account alike):
 * 401 the bearer key, 403 what it may call and from where (lib/keys/access.ts), then 429 its
 * per-second limit. The headers are the ones every answer
 * from here on carries, in the order they are sent.
 */
export type Headers = Record<string, string>;

export type Admission =
  /** 401: no key, or one that is not (or no longer) good. Only X-Request-Id goes out. */
  | { kind: "unauthenticated"; message: string; headers: Headers }
  /** 403: the key may not make this call (operation) or not from this address. Not rate-counted. */
  | { kind: "forbidden"; key: KeyCredentials; message: string; headers: Headers }
  /** 429: over the key's per-second limit; Retry-After is set. */
  | { kind: "rate_limited"; key: KeyCredentials; headers: Headers }
  | { kind: "admitted"; key: KeyCredentials; headers: Headers };

export type AdmitDeps = { authenticator: Authenticator; limiter: RateLimiter };

/**
 * The call being made: operationId null for calls every key may make (/v1/account); clientAddress
 * null for lookups the server makes on the key's behalf (batch items, checked when the batch was
 * created), never for a request from a client.
 */
export type Call = { operationId: string | null; clientAddress: string | null; startedAt?: number };

/**
 * `authenticated`: the outcome of authenticating `authorization` a moment ago, in the same request
 * (the MCP front checks the key before any exchange): it is not checked a second time.
 */
export const admit = async (
  authorization: string | null,
  requestId: string,
  deps: AdmitDeps,
  call: Call,
  authenticated?: AuthOutcome,
): Promise<Admission> => {
  const auth = authenticated ?? (await deps.authenticator.authenticate(authorization));
  if (!auth.ok) return { kind: "unauthenticated", message: authMessages[auth.reason], headers: { "X-Request-Id": requestId } };
  const refusal = accessRefusal(auth.key.access, call.operationId, call.clientAddress);
  if (refusal !== null) return { kind: "forbidden", key: auth.key, message: accessMessages[refusal], headers: { "X-Request-Id": requestId } };
  const rate = await deps.limiter.consume(auth.key.id, auth.key.qpsLimit, call.startedAt);
  const headers: Headers = { "X-Request-Id": requestId, ...rateLimitHeaders(rate) };
  if (!rate.allowed) return { kind: "rate_limited", key: auth.key, headers: { ...headers, "Retry-After": String(resetSeconds(rate)) } };
  return { kind: "admitted", key: auth.key, headers };
};
