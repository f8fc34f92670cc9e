import type { RateLimitHeaderName } from "./header-names";
import { RATE_WINDOW_S, type RateDecision } from "./limiter";

/**
 * A rate decision as response headers, in two dialects side by side:
 * - the current IETF draft (draft-ietf-httpapi-ratelimit-headers-09/-10): `RateLimit-Policy`
 *   names the policy with its quota `q` per window `w` seconds, `RateLimit` reports what is left
 *   of it (`r`) and the seconds until it resets (`t`), both Structured Field lists whose items
 *   are Strings;
 * - draft-06's `RateLimit-Limit` / `-Remaining` / `-Reset`, kept because existing clients read them.
 */
export const RATE_POLICY_NAME = "per-key";

/** Whole seconds until the window resets, never 0: a client told "0" would retry at once and be refused. */
export const resetSeconds = (decision: RateDecision): number => Math.max(1, Math.ceil(decision.resetMs / 1000));

export const rateLimitHeaders = (decision: RateDecision): Record<RateLimitHeaderName, string> => {
  const reset = resetSeconds(decision);
  return {
    "RateLimit-Policy": `"${RATE_POLICY_NAME}";q=${decision.limit};w=${RATE_WINDOW_S}`,
    RateLimit: `"${RATE_POLICY_NAME}";r=${decision.remaining};t=${reset}`,
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(reset),
  };
};
