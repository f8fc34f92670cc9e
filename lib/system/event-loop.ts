import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

/**
 * The event loop's delay between two snapshots, measured by a histogram of this module's own.
 * Not read from the registry's nodejs_eventloop_lag_* gauges: reading them runs their collect,
 * which resets the histogram behind them, so every snapshot would cut short the window the next
 * Prometheus scrape reports.
 */
export type EventLoopDelay = { meanMs: number; p99Ms: number };

const holder = globalThis as typeof globalThis & { __socialLookupSystemLoopDelay?: IntervalHistogram };

/** The delay since the last call (none on the first: the histogram starts then). */
export const eventLoopDelaySinceLast = (): EventLoopDelay | null => {
  const histogram = holder.__socialLookupSystemLoopDelay;
  if (histogram === undefined) {
    const started = monitorEventLoopDelay({ resolution: 20 });
    started.enable();
    holder.__socialLookupSystemLoopDelay = started;
    return null;
  }
  const delay = histogram.count > 0 ? { meanMs: histogram.mean / 1e6, p99Ms: histogram.percentile(99) / 1e6 } : null;
  histogram.reset();
  return delay;
};
