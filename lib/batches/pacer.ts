/**
 * Paces a process's batch lookups under each key's per-second limit, so that the runner never
 * meets its own 429: at most `admitted(limit)` lookups start in any window of WINDOW_MS, a little
 * more than the limiter's second, and a little less than the limit (room for the key's own calls:
 * the POST that created the batch, a client polling it). The limiter counts a lookup at the time
 * the pipeline began it, which is the moment its slot here was given (the runner starts it at
 * once), so a window 10 ms longer than the limiter's is margin enough for the clocks' rounding.
 * Lookups start at once while the window has room (no ramp), then as the oldest start leaves it.
 */
export const WINDOW_MS = 1010;

/** Starts allowed per window: 2 % under the limit, at least one. */
export const admitted = (qpsLimit: number): number => Math.max(1, qpsLimit - Math.ceil(qpsLimit / 50));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type Pacer = {
  /** Resolves when a lookup with this key may start (and counts it). */
  slot(keyId: string, qpsLimit: number): Promise<void>;
  /** Someone else used the key's budget (a 429): no start before `ms` from now. */
  holdOff(keyId: string, ms: number): void;
  /** How many lookups with this key could start right now without waiting (none is counted). */
  room(keyId: string, qpsLimit: number): number;
};

export const createPacer = (now: () => number = Date.now): Pacer => {
  const starts = new Map<string, number[]>();
  const heldUntil = new Map<string, number>();
  return {
    slot: async (keyId, qpsLimit) => {
      for (;;) {
        const at = now();
        const hold = heldUntil.get(keyId) ?? 0;
        let log = starts.get(keyId);
        if (!log) starts.set(keyId, (log = []));
        while (log.length > 0 && (log[0] ?? 0) <= at - WINDOW_MS) log.shift();
        if (hold <= at && log.length < admitted(qpsLimit)) {
          log.push(at);
          return;
        }
        const oldest = log[0] ?? at;
        await sleep(Math.max(1, hold > at ? hold - at : oldest + WINDOW_MS - at));
      }
    },
    room: (keyId, qpsLimit) => {
      const at = now();
      if ((heldUntil.get(keyId) ?? 0) > at) return 0;
      const recent = (starts.get(keyId) ?? []).filter((startedAt) => startedAt > at - WINDOW_MS).length;
      return Math.max(0, admitted(qpsLimit) - recent);
    },
    holdOff: (keyId, ms) => {
      heldUntil.set(keyId, Math.max(heldUntil.get(keyId) ?? 0, now() + ms));
    },
  };
};
