import { DomainError } from "@/lib/errors";
import { metrics, onScrape } from "@/lib/metrics/registry";
import type { CacheProbe } from "./source";
import { UpstreamBadAnswerError, UpstreamKeyRejectedError, UpstreamUnavailableError, type UpstreamFailureKind } from "./upstream-client";
import type { UpstreamGuard } from "./upstream-resilience";

/**
 * What the upstream engine tells the metrics (lib/metrics/registry.ts): each provider call's
 * latency, outcome and failure kind, the cache's answers, single-flight joins and the circuit
 * breaker's state. The `operation` label is the provider operation called, the last segment of
 * its path ("followers", "event_details_id"): a source declares it, so its values are the
 * registry's (both event operations call event_details_id).
 */
export const upstreamOperationOf = (path: string): string => path.split("/").filter((part) => part !== "").at(-1) ?? "unknown";

/** The failure kind of an error a provider call ended with; null for one that is not the provider's (a database error). */
export const failureKindOf = (error: unknown): UpstreamFailureKind | null => {
  if (error instanceof UpstreamUnavailableError || error instanceof UpstreamBadAnswerError) return error.failure;
  if (error instanceof UpstreamKeyRejectedError) return "status_4xx";
  if (error instanceof DomainError && error.code === "source_rate_limited") return "rate_limited";
  return null;
};

/** A lookup refused because the breaker is open, before any call was made. */
export const countBreakerOpen = (): void => metrics().upstreamErrors.inc({ kind: "breaker_open" });

/** The cache's answer to a lookup's first probe: fresh (hit), cached but too old (stale), or absent (miss). */
export const countCacheLookup = (probe: CacheProbe): void =>
  metrics().cacheLookups.inc({ result: probe.fresh ? "hit" : probe.stale === true ? "stale" : "miss" });

export const countSingleFlightJoin = (): void => metrics().singleFlightJoins.inc();

/**
 * One provider fetch of a source (single-flight's leader): `get` times each call of it, `ended`
 * counts its outcome once: ok, not_found, or error with its failure kind.
 */
export const observeFetch = () => {
  const { upstreamDuration, upstreamRequests, upstreamErrors } = metrics();
  let operation: string | null = null;
  return {
    get: async <T>(path: string, call: () => Promise<T>): Promise<T> => {
      operation = upstreamOperationOf(path);
      const end = upstreamDuration.startTimer({ operation });
      try {
        return await call();
      } finally {
        end();
      }
    },
    found: (found: boolean): void => {
      if (operation !== null) upstreamRequests.inc({ operation, outcome: found ? "ok" : "not_found" });
    },
    failed: (error: unknown): void => {
      const kind = failureKindOf(error);
      if (kind !== null) upstreamErrors.inc({ kind });
      if (operation !== null) upstreamRequests.inc({ operation, outcome: "error" });
    },
  };
};

const CIRCUIT_STATE = { closed: 0, "half-open": 1, open: 2 } as const;

const holder = globalThis as typeof globalThis & { __socialLookupCircuit?: { guard: UpstreamGuard<unknown> | null } };

/**
 * The breaker's state as a gauge: set on each change, and read again at each scrape (an open
 * breaker turns half-open when its cool-down ends, with no event). The process's connector is
 * the latest one made (tests make several); one scrape hook serves them all.
 */
export const trackCircuit = <T>(guard: UpstreamGuard<T>): void => {
  const gauge = metrics().upstreamCircuitState;
  const show = (current: UpstreamGuard<unknown>) => gauge.set(CIRCUIT_STATE[current.breaker().state]);
  if (!holder.__socialLookupCircuit) {
    const tracked: { guard: UpstreamGuard<unknown> | null } = { guard: null };
    holder.__socialLookupCircuit = tracked;
    onScrape(() => {
      if (tracked.guard) show(tracked.guard);
    });
  }
  const tracked = holder.__socialLookupCircuit;
  tracked.guard = guard;
  guard.onStateChange(() => {
    if (tracked.guard === guard) show(guard);
  });
  show(guard);
};
