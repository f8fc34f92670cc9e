/**
 * Freshness a /v1 client asks for (upstream data sources): `Cache-Control: max-age=N` accepts a
 * cached answer up to N seconds old; `no-cache` (or max-age=0) asks for a fresh one. Anything
 * else — no header, other directives, a malformed value — leaves the operator's TTLs.
 */
const MAX_AGE_LIMIT_S = 31_536_000;

export const maxAgeFromCacheControl = (header: string | null): number | undefined => {
  if (header === null) return undefined;
  let maxAgeS: number | undefined;
  for (const raw of header.split(",")) {
    const directive = raw.trim().toLowerCase();
    if (directive === "no-cache") return 0;
    const match = /^max-age\s*=\s*"?(\d{1,12})"?$/.exec(directive);
    if (match?.[1] !== undefined) maxAgeS = Math.min(Number(match[1]), MAX_AGE_LIMIT_S);
  }
  return maxAgeS;
};
