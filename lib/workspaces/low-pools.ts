import type { Queryable } from "@/lib/db/client";
import { metrics, onScrape } from "@/lib/metrics/registry";

/**
 * Team pools running low, service-wide (pools_low_credits): a team workspace with a key that
 * draws from its pool, whose credits are 0 or at or below a low-credit line of one of those keys
 * — the key's own threshold (api_keys.alert_threshold_*) or one of its thresholds
 * (key_alert_thresholds), in credits or in percent of what the pool was granted, as the pool's
 * alerts fire them (lib/alerts/thresholds.sql). A pool no active key draws from is not counted:
 * nobody is about to be refused.
 */
export const LOW_POOLS_CACHE_MS = 15_000;

export const countLowPools = async (db: Queryable): Promise<number> => {
  const rows = await db.query<{ pools: number }>(
    `SELECT count(*)::integer AS pools FROM workspaces w
     WHERE w.personal_user_id IS NULL
       AND EXISTS (SELECT 1 FROM api_keys k WHERE k.pool_id = w.id AND k.status = 'active')
       AND (w.pool_credits = 0
         OR EXISTS (SELECT 1 FROM api_keys k WHERE k.pool_id = w.id AND k.status = 'active'
                    AND w.pool_credits <= alert_threshold_credits(k.alert_threshold_credits, k.alert_threshold_percent, w.pool_granted))
         OR EXISTS (SELECT 1 FROM key_alert_thresholds t JOIN api_keys k ON k.id = t.key_id
                    WHERE k.pool_id = w.id AND k.status = 'active'
                      AND w.pool_credits <= alert_threshold_credits(t.credits, t.percent, w.pool_granted)))`,
  );
  return rows[0]?.pools ?? 0;
};

/** Registers the scrape hook (read at most every LOW_POOLS_CACHE_MS); the returned function unregisters it. */
export const watchLowPools = (db: () => Promise<Queryable>, now: () => number = Date.now): (() => void) => {
  let readAt = Number.NEGATIVE_INFINITY;
  return onScrape(async () => {
    if (now() - readAt < LOW_POOLS_CACHE_MS) return;
    const pools = await countLowPools(await db());
    readAt = now();
    metrics().poolsLowCredits.set(pools);
  });
};
