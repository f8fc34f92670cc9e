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

/** The rate log a workspace's keys share: apart from every key's own (key ids start "key_"). */
export const workspaceLimitKey = (workspaceId: string): string => `workspace:${workspaceId}`;

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
  const own = await deps.limiter.consume(auth.key.id, auth.key.qpsLimit, call.startedAt);
  // A workspace's shared limit (docs/teams.md) is counted once the key's own admits the request:
  // then the tighter of the two is the one the headers describe.
  const shared = own.allowed && auth.key.workspaceLimit ? await deps.limiter.consume(workspaceLimitKey(auth.key.workspaceLimit.workspaceId), auth.key.workspaceLimit.qpsLimit, call.startedAt) : null;
  const rate = shared !== null && (!shared.allowed || shared.remaining < own.remaining) ? shared : own;
  const headers: Headers = { "X-Request-Id": requestId, ...rateLimitHeaders(rate) };
  if (!rate.allowed) return { kind: "rate_limited", key: auth.key, headers: { ...headers, "Retry-After": String(resetSeconds(rate)) } };
  return { kind: "admitted", key: auth.key, headers };
};
