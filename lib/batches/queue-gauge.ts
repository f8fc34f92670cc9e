import type { Queryable } from "@/lib/db/client";
import { metrics, onScrape } from "@/lib/metrics/registry";

/**
 * The service's batch queue as a gauge (batches{state}: queued, running), read from the database,
 * so every instance reports the same figures whichever runs them. One count per scrape at most
 * every CACHE_MS, over the partial index of runnable batches (batches_runnable_idx).
 */
export const OPEN_BATCHES_CACHE_MS = 5000;

export const countOpenBatches = async (db: Queryable): Promise<{ queued: number; running: number }> => {
  const rows = await db.query<{ status: string; batches: number }>(
    "SELECT status, count(*)::integer AS batches FROM batches WHERE status IN ('queued', 'running') GROUP BY status",
  );
  const of = (status: string) => rows.find((row) => row.status === status)?.batches ?? 0;
  return { queued: of("queued"), running: of("running") };
};

/** Registers the scrape hook; the returned function unregisters it. */
export const watchBatchQueue = (db: () => Promise<Queryable>, now: () => number = Date.now): (() => void) => {
  let readAt = Number.NEGATIVE_INFINITY;
  return onScrape(async () => {
    if (now() - readAt < OPEN_BATCHES_CACHE_MS) return;
    const counts = await countOpenBatches(await db());
    readAt = now();
    const { batches } = metrics();
    batches.set({ state: "queued" }, counts.queued);
    batches.set({ state: "running" }, counts.running);
  });
};
