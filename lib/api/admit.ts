import type { Authenticator } from "@/lib/keys/authenticate";
import type { KeyCredentials } from "@/lib/keys/repository";
import type { RateLimiter } from "@/lib/ratelimit/limiter";
import { authMessages } from "./errors";

/**
 * The first two checks of every authenticated /v1 request (lookups and /v1/account alike):
 * 401 the bearer key, then 429 its per-second limit. The headers are the ones every answer
 * from here on carries, in the order they are sent.
 */
export type Headers = Record<string, string>;

export type Admission =
  /** 401: no key, or one that is not (or no longer) good. Only X-Request-Id goes out. */
  | { kind: "unauthenticated"; message: string; headers: Headers }
  /** 429: over the key's per-second limit; Retry-After is set. */
  | { kind: "rate_limited"; key: KeyCredentials; headers: Headers }
  | { kind: "admitted"; key: KeyCredentials; headers: Headers };

export type AdmitDeps = { authenticator: Authenticator; limiter: RateLimiter };

export const admit = async (authorization: string | null, requestId: string, deps: AdmitDeps): Promise<Admission> => {
  const auth = await deps.authenticator.authenticate(authorization);
  if (!auth.ok) return { kind: "unauthenticated", message: authMessages[auth.reason], headers: { "X-Request-Id": requestId } };
  const rate = await deps.limiter.consume(auth.key.id, auth.key.qpsLimit);
  const resetS = String(Math.max(1, Math.ceil(rate.resetMs / 1000)));
  const headers: Headers = {
    "X-Request-Id": requestId,
    "RateLimit-Limit": String(rate.limit),
    "RateLimit-Remaining": String(rate.remaining),
    "RateLimit-Reset": resetS,
  };
  if (!rate.allowed) return { kind: "rate_limited", key: auth.key, headers: { ...headers, "Retry-After": resetS } };
  return { kind: "admitted", key: auth.key, headers };
};
