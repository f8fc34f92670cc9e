import type { V1Resource } from "@/lib/api/v1-router";

/**
 * CORS for /v1 (docs/decisions.md "Transport"). The OpenAPI document is public: any origin may read
 * it (hosted Swagger UI, Redoc). The operations and /v1/account take a key, and a key in a
 * browser page of another site is a leaked secret: they are closed to other origins unless the
 * operator lists an origin in CORS_ALLOWED_ORIGINS. Closed means no CORS headers at all, so a
 * browser refuses the preflight that a request with an Authorization header needs.
 */
export type CorsPolicy = { allowedOrigins: readonly string[] };

const PREFLIGHT_MAX_AGE_S = "600";

/** What a page of another origin may read besides the body: the contract's own headers. */
const EXPOSED_HEADERS = [
  "X-Request-Id",
  "X-Credits-Cost",
  "X-Credits-Charged",
  "X-Credits-Remaining",
  "X-Cache",
  "X-Data-As-Of",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
].join(", ");

const isKeyed = (resource: V1Resource): boolean => resource === "operation" || resource === "account";

/** Headers added to an actual (non-preflight) answer. */
export const corsHeaders = (policy: CorsPolicy, resource: V1Resource, origin: string | undefined): Record<string, string> => {
  if (resource === "openapi") return { "Access-Control-Allow-Origin": "*" };
  if (!isKeyed(resource) || policy.allowedOrigins.length === 0) return {};
  // The answer depends on Origin once a list exists: caches must keep one copy per origin.
  if (origin === undefined || !policy.allowedOrigins.includes(origin)) return { Vary: "Origin" };
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED_HEADERS, Vary: "Origin" };
};

export const isPreflight = (method: string, origin: string | undefined, requestMethod: string | undefined): boolean =>
  method === "OPTIONS" && origin !== undefined && requestMethod !== undefined;

/**
 * The answer to a preflight, or null when it is refused (the router then answers OPTIONS as any
 * other method: 405, without CORS headers, which the browser takes as a refusal).
 */
export const preflightHeaders = (
  policy: CorsPolicy,
  resource: V1Resource,
  origin: string,
  requestMethod: string,
): Record<string, string> | null => {
  if (resource === "openapi") {
    if (requestMethod !== "GET" && requestMethod !== "HEAD") return null;
    return {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": "GET, HEAD",
      "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_S,
    };
  }
  if (!isKeyed(resource) || requestMethod !== "GET" || !policy.allowedOrigins.includes(origin)) return null;
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "GET",
    "Access-Control-Allow-Headers": "Authorization",
    "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_S,
    Vary: "Origin",
  };
};
