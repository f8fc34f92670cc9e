import crypto from "node:crypto";

/**
 * An operator's monitoring token (METRICS_TOKEN) as a request sends it: `Authorization: Bearer
 * <token>`. Read by the scrape endpoint and by /readyz for its details.
 */
const digest = (text: string): Buffer => crypto.createHash("sha256").update(text).digest();

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export const bearerMatches = (authorization: string | undefined, token: string): boolean => {
  const match = /^Bearer (.+)$/i.exec(authorization?.trim() ?? "");
  const sent = match?.[1]?.trim() ?? "";
  return crypto.timingSafeEqual(digest(sent), digest(token)) && sent.length > 0;
};
