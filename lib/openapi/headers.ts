import { RATE_LIMIT_HEADER_NAMES } from "@/lib/ratelimit/header-names";

/**
 * The headers every authenticated /v1 answer carries (docs/api.md "Headers",
 * docs/decisions.md "Envelope and headers"). Its own module, free of zod, because the API
 * reference's try-it panel (a client component) shows them too.
 */
export const AUTHENTICATED_HEADERS = [
  "X-Request-Id",
  "X-Credits-Cost",
  "X-Credits-Charged",
  "X-Credits-Remaining",
  ...RATE_LIMIT_HEADER_NAMES,
] as const;

/** A lookup's freshness, on a 200 (lib/api/freshness.ts): cache hit or miss, when read, how old. */
export const FRESHNESS_HEADERS = ["X-Cache", "X-Data-As-Of", "Age"] as const;
