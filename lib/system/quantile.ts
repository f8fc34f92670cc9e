/**
 * A quantile from a histogram's cumulative buckets, computed as Prometheus's histogram_quantile
 * does it (promql/quantile.go `bucketQuantile`), so that the system page and a dashboard reading
 * the same buckets show the same figure: find the bucket the rank falls into and interpolate
 * linearly within it, the first bucket starting at 0; a rank in the +Inf bucket answers the
 * highest finite upper bound.
 */
export type Bucket = { upperBound: number; count: number };

/** null where Prometheus answers NaN: no +Inf bucket, fewer than two buckets, no observations. */
export const histogramQuantile = (quantile: number, cumulative: readonly Bucket[]): number | null => {
  if (Number.isNaN(quantile)) return null;
  if (quantile < 0) return Number.NEGATIVE_INFINITY;
  if (quantile > 1) return Number.POSITIVE_INFINITY;
  const buckets = coalesce([...cumulative].sort((a, b) => a.upperBound - b.upperBound));
  const last = buckets.at(-1);
  if (last === undefined || last.upperBound !== Number.POSITIVE_INFINITY || buckets.length < 2) return null;
  monotonic(buckets);
  const observations = last.count;
  if (observations === 0) return null;
  let rank = quantile * observations;
  // The first bucket among all but +Inf whose count reaches the rank, else +Inf's index.
  let index = buckets.findIndex((bucket, at) => at < buckets.length - 1 && bucket.count >= rank);
  if (index === -1) index = buckets.length - 1;
  if (index === buckets.length - 1) return buckets[buckets.length - 2]?.upperBound ?? null;
  const bucket = buckets[index];
  if (bucket === undefined) return null;
  if (index === 0 && bucket.upperBound <= 0) return bucket.upperBound;
  let start = 0;
  let count = bucket.count;
  const previous = index > 0 ? buckets[index - 1] : undefined;
  if (previous !== undefined) {
    start = previous.upperBound;
    count -= previous.count;
    rank -= previous.count;
  }
  return start + (bucket.upperBound - start) * (rank / count);
};

/** Buckets of one upper bound (several series summed, or repeated) become one. */
const coalesce = (sorted: Bucket[]): Bucket[] => {
  const merged: Bucket[] = [];
  for (const bucket of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && last.upperBound === bucket.upperBound) last.count += bucket.count;
    else merged.push({ ...bucket });
  }
  return merged;
};

/**
 * Cumulative counts never fall as the bound rises; scraped separately they can (Prometheus's
 * ensureMonotonic): a lower count is raised to the one before it.
 */
const monotonic = (buckets: Bucket[]): void => {
  let highest = 0;
  for (const bucket of buckets) {
    if (bucket.count < highest) bucket.count = highest;
    else highest = bucket.count;
  }
};
