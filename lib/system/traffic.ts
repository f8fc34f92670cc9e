import { histogramQuantile, type Bucket } from "./quantile";
import { METRIC, sumOf, type Families } from "./metric-families";

/**
 * Requests per second, error rates and latency quantiles over the last minute, from the lookup
 * counter and latency histogram: Prometheus's rate() and histogram_quantile() over [1m], done on
 * samples of the cumulative figures this process keeps in memory (one per snapshot).
 */
export const WINDOW_MS = 60_000;

/** The cumulative figures at one moment, every series summed. */
export type TrafficSample = {
  atMs: number;
  requests: number;
  /** Status 500 and above. */
  serverErrors: number;
  /** Every status but 200 (what the usage page calls its error rate). */
  non200: number;
  /** Cumulative latency buckets in seconds, +Inf included, summed over channels and operations. */
  latency: readonly Bucket[];
};

export type TrafficFigures = {
  /** The seconds the figures cover: the last minute, or less while the process is younger. */
  windowS: number;
  requestsTotal: number;
  requestsInWindow: number;
  requestsPerSecond: number;
  /** Share of the window's requests with a status ≥ 500; null without requests. */
  errorRate: number | null;
  /** Share of the window's requests with a status other than 200; null without requests. */
  non200Rate: number | null;
  p50LatencyMs: number | null;
  p99LatencyMs: number | null;
};

const statusOf = (labels: Readonly<Record<string, string | number | undefined>>): number => Number(labels.status);

const upperBoundOf = (le: string | number | undefined): number | null => {
  if (le === "+Inf") return Number.POSITIVE_INFINITY;
  const bound = Number(le);
  return le === undefined || Number.isNaN(bound) ? null : bound;
};

export const sampleTraffic = (families: Families, atMs: number): TrafficSample => {
  const buckets = new Map<number, number>();
  for (const value of families.get(METRIC.requestDuration)?.values ?? []) {
    if (value.metricName !== `${METRIC.requestDuration}_bucket`) continue;
    const bound = upperBoundOf(value.labels.le);
    if (bound !== null) buckets.set(bound, (buckets.get(bound) ?? 0) + value.value);
  }
  return {
    atMs,
    requests: sumOf(families, METRIC.requests),
    serverErrors: sumOf(families, METRIC.requests, (labels) => statusOf(labels) >= 500),
    non200: sumOf(families, METRIC.requests, (labels) => statusOf(labels) !== 200),
    latency: [...buckets].map(([upperBound, count]) => ({ upperBound, count })).sort((a, b) => a.upperBound - b.upperBound),
  };
};

/** Every figure zero: the counters as a process starts, the first baseline. */
export const zeroSample = (atMs: number): TrafficSample => ({ atMs, requests: 0, serverErrors: 0, non200: 0, latency: [] });

/**
 * The baseline of the window ending at `nowMs`: the newest sample at least a minute old, else the
 * oldest there is (a process younger than a minute measures from its start).
 */
export const baselineOf = (samples: readonly TrafficSample[], nowMs: number): TrafficSample | undefined => {
  const older = samples.filter((sample) => sample.atMs <= nowMs - WINDOW_MS);
  return older.at(-1) ?? samples[0];
};

/** Samples still needed once `latest` is kept: from the newest one a minute old on. */
export const keptSamples = (samples: readonly TrafficSample[], latest: TrafficSample): TrafficSample[] => {
  const all = [...samples, latest];
  const baseline = baselineOf(all, latest.atMs);
  return baseline === undefined ? all : all.filter((sample) => sample.atMs >= baseline.atMs);
};

/** An increase as rate() counts it: a counter lower than before was reset, so all of it is new. */
const increase = (now: number, before: number): number => (now >= before ? now - before : now);

const bucketIncrease = (now: readonly Bucket[], before: readonly Bucket[]): Bucket[] => {
  const earlier = new Map(before.map((bucket) => [bucket.upperBound, bucket.count]));
  const reset = now.some((bucket) => bucket.count < (earlier.get(bucket.upperBound) ?? 0));
  return now.map((bucket) => ({ upperBound: bucket.upperBound, count: reset ? bucket.count : bucket.count - (earlier.get(bucket.upperBound) ?? 0) }));
};

const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

const toMs = (seconds: number | null): number | null => (seconds === null || !Number.isFinite(seconds) ? null : seconds * 1000);

export const trafficFigures = (latest: TrafficSample, baseline: TrafficSample): TrafficFigures => {
  const windowS = Math.max(0, (latest.atMs - baseline.atMs) / 1000);
  const requests = increase(latest.requests, baseline.requests);
  const buckets = bucketIncrease(latest.latency, baseline.latency);
  return {
    windowS,
    requestsTotal: latest.requests,
    requestsInWindow: requests,
    requestsPerSecond: windowS > 0 ? requests / windowS : 0,
    errorRate: share(Math.min(requests, increase(latest.serverErrors, baseline.serverErrors)), requests),
    non200Rate: share(Math.min(requests, increase(latest.non200, baseline.non200)), requests),
    p50LatencyMs: toMs(histogramQuantile(0.5, buckets)),
    p99LatencyMs: toMs(histogramQuantile(0.99, buckets)),
  };
};
