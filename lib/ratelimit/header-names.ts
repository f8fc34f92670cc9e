/**
 * The rate-limit headers of every authenticated /v1 answer (lib/ratelimit/headers.ts writes them),
 * in the order they are sent. Its own module, free of the limiter, because the API reference's
 * try-it panel (a client component) lists them too (lib/openapi/headers.ts).
 */
export const RATE_LIMIT_HEADER_NAMES = [
  "RateLimit-Policy",
  "RateLimit",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
] as const;

export type RateLimitHeaderName = (typeof RATE_LIMIT_HEADER_NAMES)[number];
