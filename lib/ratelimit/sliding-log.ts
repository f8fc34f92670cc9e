/**
 * The per-key limit as a sliding log (the exact sliding-window algorithm: every admission's time
 * is kept, nothing is approximated): a request at `now` is admitted only while fewer than `limit`
 * admissions lie within WINDOW_MS of it on either side. Counting both sides keeps the rule exact
 * even when requests reach the log slightly out of time order (several instances, a Redis round
 * trip): for any window of WINDOW_MS, the last admission in it saw all the others within
 * WINDOW_MS of itself, so a window never holds more than `limit`. The in-memory log below and
 * the Redis script (sliding-log-redis.ts) implement the same rule.
 */
export const WINDOW_MS = 1000;

/** Entries further back than this can no longer matter, even to a late request. */
export const KEEP_MS = 2 * WINDOW_MS;

export type LogDecision = {
  allowed: boolean;
  /** Admissions within WINDOW_MS of `now`, this one included when admitted. */
  count: number;
  /**
   * Milliseconds until a slot frees: for a refusal, until this request would be admitted; for an
   * admission, until the oldest admission in the window leaves it.
   */
  resetMs: number;
};

/** The first index of `sorted` (from `from`) whose value is > `value`. */
const upperBound = (sorted: number[], from: number, value: number): number => {
  let low = from;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? 0) <= value) low = middle + 1;
    else high = middle;
  }
  return low;
};

/** The first index of `sorted` (from `from`) whose value is >= `value`. */
const lowerBound = (sorted: number[], from: number, value: number): number => {
  let low = from;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? 0) < value) low = middle + 1;
    else high = middle;
  }
  return low;
};

/** One key's admissions, ascending, from `start` on (a head index, so dropping old ones is cheap). */
type KeyLog = { times: number[]; start: number };

export type MemorySlidingLog = {
  consume(keyId: string, limit: number, nowMs: number): LogDecision;
};

export const createMemorySlidingLog = (): MemorySlidingLog => {
  const logs = new Map<string, KeyLog>();
  let nextSweepAt = 0;

  /** Forgets keys idle for KEEP_MS, at most once per KEEP_MS, so memory follows the active keys. */
  const sweep = (nowMs: number) => {
    if (nowMs < nextSweepAt) return;
    nextSweepAt = nowMs + KEEP_MS;
    for (const [keyId, log] of logs) {
      if ((log.times.at(-1) ?? 0) <= nowMs - KEEP_MS) logs.delete(keyId);
    }
  };

  return {
    consume: (keyId, limit, nowMs) => {
      sweep(nowMs);
      let log = logs.get(keyId);
      if (!log) {
        log = { times: [], start: 0 };
        logs.set(keyId, log);
      }
      log.start = upperBound(log.times, log.start, nowMs - KEEP_MS);
      if (log.start > 1024 && log.start * 2 > log.times.length) {
        log.times = log.times.slice(log.start);
        log.start = 0;
      }
      const first = upperBound(log.times, log.start, nowMs - WINDOW_MS);
      const end = lowerBound(log.times, first, nowMs + WINDOW_MS);
      const count = end - first;
      if (count >= limit) {
        const freesAt = (log.times[first + count - limit] ?? nowMs) + WINDOW_MS;
        return { allowed: false, count, resetMs: Math.max(0, freesAt - nowMs) };
      }
      const at = upperBound(log.times, first, nowMs);
      if (at === log.times.length) log.times.push(nowMs);
      else log.times.splice(at, 0, nowMs);
      const oldest = log.times[first] ?? nowMs;
      return { allowed: true, count: count + 1, resetMs: Math.max(0, oldest + WINDOW_MS - nowMs) };
    },
  };
};
