/**
 * The two guards around calls to the upstream provider: a circuit breaker (after `threshold`
 * consecutive failed attempts it fails fast for `cooldownMs`, then lets one probe through:
 * success closes it, failure opens it again) and a semaphore capping concurrent calls.
 * In-process state: each instance protects itself.
 */
export type BreakerState = "closed" | "open" | "half-open";

export type BreakerSnapshot = {
  state: BreakerState;
  consecutiveFailures: number;
  /** When an open breaker lets its next probe through; null unless open. */
  openUntil: string | null;
};

export type CircuitBreaker = {
  /** Whether an attempt may go out now; in half-open state only one probe at a time. */
  tryAcquire(): boolean;
  /** Whether tryAcquire() would refuse, without taking the probe slot. */
  isOpen(): boolean;
  onSuccess(): void;
  onFailure(): void;
  /** The attempt ended without telling anything about the provider's health (e.g. aborted). */
  onNeutral(): void;
  snapshot(): BreakerSnapshot;
};

export const createCircuitBreaker = (options: {
  threshold: number;
  cooldownMs: number;
  now?: () => number;
}): CircuitBreaker => {
  const now = options.now ?? Date.now;
  let consecutiveFailures = 0;
  let openedAt: number | null = null;
  let probeInFlight = false;

  const state = (): BreakerState => {
    if (openedAt === null) return "closed";
    return now() - openedAt >= options.cooldownMs ? "half-open" : "open";
  };

  return {
    tryAcquire: () => {
      const current = state();
      if (current === "closed") return true;
      if (current === "open" || probeInFlight) return false;
      probeInFlight = true;
      return true;
    },
    isOpen: () => {
      const current = state();
      return current === "open" || (current === "half-open" && probeInFlight);
    },
    onSuccess: () => {
      consecutiveFailures = 0;
      openedAt = null;
      probeInFlight = false;
    },
    onFailure: () => {
      consecutiveFailures += 1;
      if (probeInFlight || consecutiveFailures >= options.threshold) openedAt = now();
      probeInFlight = false;
    },
    onNeutral: () => {
      probeInFlight = false;
    },
    snapshot: () => {
      const current = state();
      return {
        state: current,
        consecutiveFailures,
        openUntil: current === "open" && openedAt !== null ? new Date(openedAt + options.cooldownMs).toISOString() : null,
      };
    },
  };
};

export type Semaphore = {
  /** Waits for a slot for at most `timeoutMs`; resolves to a release function, or null on timeout. */
  acquire(timeoutMs: number): Promise<(() => void) | null>;
  snapshot(): { max: number; inUse: number; waiting: number };
};

export const createSemaphore = (max: number): Semaphore => {
  let inUse = 0;
  const waiting: Array<() => void> = [];

  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next) next();
      else inUse -= 1;
    };
  };

  return {
    acquire: (timeoutMs) => {
      if (inUse < max) {
        inUse += 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve) => {
        // A slot handed over by release() keeps inUse unchanged: the releaser's slot becomes ours.
        const grant = () => {
          clearTimeout(timer);
          resolve(releaser());
        };
        const timer = setTimeout(() => {
          const index = waiting.indexOf(grant);
          if (index >= 0) waiting.splice(index, 1);
          resolve(null);
        }, timeoutMs);
        waiting.push(grant);
      });
    },
    snapshot: () => ({ max, inUse, waiting: waiting.length }),
  };
};
