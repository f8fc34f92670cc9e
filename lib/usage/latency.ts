/**
 * Latency percentiles from the histogram kept in usage_daily.latency_buckets (lib/usage/daily.sql,
 * usage_bucket()): bucket 1 counts latencies under 1 ms, bucket i (2…15) counts
 * [2^(i-2), 2^(i-1)) ms, bucket 16 counts everything from 16,384 ms up.
 *
 * A percentile is reported as the UPPER BOUND of the bucket that holds it ("p95 ≤ 64 ms"), so it
 * is exact to a power of two, never an interpolation. The top bucket has no upper bound: it is
 * reported as its lower bound, LATENCY_TOP_BUCKET_MS, to be read as "at least".
 */
export const LATENCY_BUCKETS = 16;
export const LATENCY_TOP_BUCKET_MS = 16_384;

/** The 1-based bucket of a latency, exactly as the database's usage_bucket() computes it. */
export const latencyBucket = (latencyMs: number): number => {
  if (latencyMs < 1) return 1;
  // floor(log2(ms)) + 2 without floating point: 31 - clz32 is floor(log2) of an integer ≥ 1.
  return Math.min(LATENCY_BUCKETS, 33 - Math.clz32(Math.floor(latencyMs)));
};

/** Upper bound (exclusive) of bucket i in ms; the top bucket answers its lower bound. */
export const bucketUpperBoundMs = (bucket: number): number =>
  bucket >= LATENCY_BUCKETS ? LATENCY_TOP_BUCKET_MS : 2 ** (bucket - 1);

export const emptyBuckets = (): number[] => Array.from({ length: LATENCY_BUCKETS }, () => 0);

/** Adds `from` into `into`, element by element. */
export const addBuckets = (into: number[], from: readonly number[]): void => {
  for (let index = 0; index < LATENCY_BUCKETS; index += 1) into[index] = (into[index] ?? 0) + (from[index] ?? 0);
};

/**
 * The bucket upper bound below which at least `fraction` (0 < fraction ≤ 1) of the requests
 * fall; null when the histogram is empty. Rank = ceil(fraction × count), the nearest-rank method.
 */
export const percentileMs = (buckets: readonly number[], fraction: number): number | null => {
  const total = buckets.reduce((sum, count) => sum + count, 0);
  if (total <= 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * total));
  let seen = 0;
  for (let index = 0; index < LATENCY_BUCKETS; index += 1) {
    seen += buckets[index] ?? 0;
    if (seen >= rank) return bucketUpperBoundMs(index + 1);
  }
  return LATENCY_TOP_BUCKET_MS;
};

/** Histogram of raw latencies, as the rollup would hold them (used by tests and the bench). */
export const bucketsOf = (latenciesMs: readonly number[]): number[] => {
  const buckets = emptyBuckets();
  for (const latencyMs of latenciesMs) {
    const index = latencyBucket(latencyMs) - 1;
    buckets[index] = (buckets[index] ?? 0) + 1;
  }
  return buckets;
};
