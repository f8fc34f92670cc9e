/**
 * How many lookups a batch keeps in flight, so that it uses its key's per-second budget without
 * anyone tuning a knob. By Little's law a batch sustaining `rate` lookups per second that each take
 * `latency` seconds has rate × latency of them in flight; the runner keeps a fifth more, plus a
 * couple, so that a slower lookup or a burst the key's window allows never leaves the budget
 * idle. The latency is measured: an exponentially weighted mean of the lookups that ended, raised
 * while a lookup in flight has already run longer (a provider slower than the first guess is
 * noticed before its first answer, not after). Pure functions and state, no timers: the runner
 * feeds them what it observed.
 */

/** The latency assumed before a batch's first lookup ends. */
export const LATENCY_GUESS_MS = 1000;
/** Lookups in flight beyond Little's law, as a factor and as a constant. */
export const HEADROOM_FACTOR = 1.2;
export const HEADROOM_LOOKUPS = 2;
/** The weight of each new observation in the mean. */
export const LATENCY_WEIGHT = 0.2;
/**
 * The process's batch lookups take at most this share of its provider calls in flight
 * (UPSTREAM_MAX_CONCURRENCY): the rest stays free for the /v1 requests of everybody else.
 */
export const BATCH_SHARE_OF_PROCESS = 0.75;

/** Lookups in flight for `qpsLimit` lookups per second that take `latencyMs` each (at least one). */
export const lookupsForRate = (qpsLimit: number, latencyMs: number): number =>
  Math.max(1, Math.ceil(qpsLimit * (Math.max(0, latencyMs) / 1000) * HEADROOM_FACTOR + HEADROOM_LOOKUPS));

/** The process's bound on batch lookups in flight, given its bound on provider calls in flight. */
export const batchLookupsPerProcess = (providerCallsPerProcess: number): number =>
  Math.max(1, Math.floor(providerCallsPerProcess * BATCH_SHARE_OF_PROCESS));

export type LatencyEstimate = {
  /** A lookup ended after `latencyMs`. */
  observe(latencyMs: number): void;
  /** The latency to plan for, given how long the oldest lookup still in flight has run (0: none). */
  estimateMs(oldestInFlightMs: number): number;
};

export const createLatencyEstimate = (guessMs: number = LATENCY_GUESS_MS): LatencyEstimate => {
  let meanMs: number | null = null;
  return {
    observe: (latencyMs) => {
      const sample = Math.max(0, latencyMs);
      // The first observation replaces the guess: a guess is worth less than one measurement.
      meanMs = meanMs === null ? sample : meanMs + LATENCY_WEIGHT * (sample - meanMs);
    },
    estimateMs: (oldestInFlightMs) => Math.max(meanMs ?? guessMs, oldestInFlightMs),
  };
};

/**
 * Lookups a batch should keep in flight now: Little's law for its key's rate and the latency
 * estimate, under the operator's ceiling (BATCH_CONCURRENCY) when there is one.
 */
export const batchTarget = (input: { qpsLimit: number; latencyMs: number; ceiling: number | undefined }): number => {
  const wanted = lookupsForRate(input.qpsLimit, input.latencyMs);
  return input.ceiling === undefined ? wanted : Math.max(1, Math.min(wanted, input.ceiling));
};

/**
 * Splits `capacity` between batches asking for `demands` (max-min fair, by water filling): a
 * batch asking for less than an equal share gets what it asks; what it leaves is shared equally
 * among the others, so no batch can take the room another needs. Every batch gets at least one
 * (the gate's turns keep the total within capacity when there are more batches than places).
 */
export const fairShares = (capacity: number, demands: ReadonlyMap<string, number>): Map<string, number> => {
  const shares = new Map<string, number>();
  const open = [...demands.entries()].sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));
  let left = Math.max(0, capacity);
  while (open.length > 0) {
    const equal = Math.floor(left / open.length);
    const [batchId, demand] = open[0] ?? ["", 0];
    if (demand <= equal) {
      shares.set(batchId, Math.max(1, demand));
      left -= demand;
      open.shift();
      continue;
    }
    // Everybody left asks for more than an equal share: each gets it, the remainder to the first.
    let remainder = left - equal * open.length;
    for (const [id] of open) {
      shares.set(id, Math.max(1, equal + (remainder > 0 ? 1 : 0)));
      remainder -= 1;
    }
    break;
  }
  return shares;
};
