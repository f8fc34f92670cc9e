import { BrokenCircuitError, bulkhead, circuitBreaker, CircuitState, ConsecutiveBreaker, handleWhenResult } from "cockatiel";

/**
 * The two guards around each attempt of a call to the upstream provider, from cockatiel: a
 * concurrency cap (a bulkhead: an attempt waits at most `waitMs` for a slot) and a circuit
 * breaker (after `threshold` consecutive failed attempts it fails fast for `cooldownMs`, then lets
 * one probe through: success closes it, failure opens it again). What counts as a failure is the
 * caller's `isFailure` (an answer that says the provider is unwell); an attempt that throws is
 * neither. In-process state: each instance protects itself.
 */
type BreakerState = "closed" | "open" | "half-open";

export type BreakerSnapshot = {
  state: BreakerState;
  consecutiveFailures: number;
  /** When an open breaker lets its next probe through; null unless open. */
  openUntil: string | null;
};

export type ConcurrencySnapshot = { max: number; inUse: number; waiting: number };

/** The breaker is open: the attempt was not made. */
export class BreakerOpenError extends Error {
  constructor() {
    super("upstream circuit breaker is open: failing fast until its cool-down ends");
  }
}

/** No slot of the concurrency cap came free in time: the attempt was not made. */
export class NoSlotError extends Error {
  constructor(waitMs: number) {
    super(`no upstream slot free within ${waitMs} ms (concurrency cap)`);
  }
}

export type UpstreamGuard<T> = {
  /** One attempt through the cap and the breaker; throws BreakerOpenError or NoSlotError when it is not made. */
  run(attempt: () => Promise<T>, waitMs: number): Promise<T>;
  /** Whether an attempt would be refused now (open and cooling down, or a probe in flight). */
  isOpen(): boolean;
  breaker(): BreakerSnapshot;
  concurrency(): ConcurrencySnapshot;
  /** Told whenever the breaker changes state (the metrics' gauge follows it). */
  onStateChange(listener: () => void): void;
};

// Waiters are bounded by their wait time, not by a queue length.
const QUEUE_CAPACITY = 1_000_000;

export const createUpstreamGuard = <T>(options: {
  threshold: number;
  cooldownMs: number;
  maxConcurrency: number;
  isFailure: (value: T) => boolean;
  /** Narrows the result cockatiel's failure filter sees (typed unknown) to the attempt's own type. */
  isValue: (value: unknown) => value is T;
}): UpstreamGuard<T> => {
  const consecutive = new ConsecutiveBreaker(options.threshold);
  const breaker = circuitBreaker(
    handleWhenResult((value) => options.isValue(value) && options.isFailure(value)),
    { halfOpenAfter: options.cooldownMs, breaker: consecutive },
  );
  const cap = bulkhead(options.maxConcurrency, QUEUE_CAPACITY);
  // cockatiel stamps the opening with Date.now() and keeps it private: the same stamp, taken here.
  let openedAt = 0;
  // Counted here: an abandoned waiter stays in cockatiel's queue until its turn comes.
  let waiting = 0;
  breaker.onBreak(() => {
    openedAt = Date.now();
  });

  const coolingDown = () => Date.now() - openedAt < options.cooldownMs;

  const run = async (attempt: () => Promise<T>, waitMs: number): Promise<T> => {
    if (breaker.state === CircuitState.Open && coolingDown()) throw new BreakerOpenError();
    const abandon = new AbortController();
    waiting += 1;
    const timer = setTimeout(() => {
      waiting -= 1;
      abandon.abort();
    }, waitMs);
    const granted = cap.execute(async () => {
      clearTimeout(timer);
      waiting -= 1;
      return breaker.execute(attempt);
    }, abandon.signal);
    const timedOut = new Promise<never>((_, reject) => {
      abandon.signal.addEventListener("abort", () => reject(new NoSlotError(waitMs)), { once: true });
    });
    // The loser of the race must not surface as an unhandled rejection.
    granted.catch(() => undefined);
    timedOut.catch(() => undefined);
    try {
      return await Promise.race([granted, timedOut]);
    } catch (error) {
      // Opened while this attempt waited for its slot.
      if (error instanceof BrokenCircuitError) throw new BreakerOpenError();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };

  const state = (): BreakerState => {
    if (breaker.state === CircuitState.Closed) return "closed";
    if (breaker.state === CircuitState.Open && coolingDown()) return "open";
    return "half-open";
  };

  return {
    run,
    isOpen: () => breaker.state === CircuitState.HalfOpen || (breaker.state === CircuitState.Open && coolingDown()),
    breaker: () => {
      const current = state();
      return {
        state: current,
        consecutiveFailures: consecutive.state,
        openUntil: current === "open" ? new Date(openedAt + options.cooldownMs).toISOString() : null,
      };
    },
    onStateChange: (listener) => {
      breaker.onStateChange(() => listener());
    },
    concurrency: () => ({
      max: options.maxConcurrency,
      inUse: options.maxConcurrency - cap.executionSlots,
      waiting,
    }),
  };
};
