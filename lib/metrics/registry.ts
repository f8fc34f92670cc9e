import client from "prom-client";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";

/**
 * Every metric the service exports, in one place: the names, their help, their labels and the
 * bounded values each label takes (docs/monitoring.md "Metrics"). Domain code imports the
 * metric it moves from here and nothing else of prom-client.
 *
 * Labels stay bounded: a channel, an operation id of the registry, a status code, a reason, a
 * kind. Never a key id, a user, a workspace, an input or a path with ids in it.
 *
 * Kept on globalThis: Next loads a module once per route bundle, and the console's routes and
 * the process front must count into the same registry the scrape reads.
 */
export const METRIC_PREFIX = "social_lookup_";

/** Seconds; from a cache hit in memory to a slow upstream page. */
const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DB_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const nothing = (): void => undefined;
const stoppedTimer = (): number => 0;
const silentChild = { inc: nothing, dec: nothing, set: nothing, setToCurrentTime: nothing, observe: nothing, startTimer: () => stoppedTimer };

/**
 * METRICS=off: the same metrics (same names, same registry, so the names stay listed) whose
 * moving methods do nothing — no label is read or hashed, nothing is kept — so callers need
 * no `if` and pay one empty call on the hot path.
 */
const silence = <M extends client.Counter<string> | client.Gauge<string> | client.Histogram<string>>(metric: M): M =>
  Object.assign(metric, { inc: nothing, dec: nothing, set: nothing, setToCurrentTime: nothing, observe: nothing, startTimer: () => stoppedTimer, labels: () => silentChild });

const build = (enabled: boolean) => {
  const registry = new client.Registry();
  const live = <M extends client.Counter<string> | client.Gauge<string> | client.Histogram<string>>(metric: M): M => (enabled ? metric : silence(metric));
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    live(new client.Counter<L>({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [registry] }));
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    live(new client.Gauge<L>({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [registry] }));
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    live(new client.Histogram<L>({ name: `${METRIC_PREFIX}${name}`, help, labelNames, buckets, registers: [registry] }));

  return {
    enabled,
    registry,
    // Lookups: one count per usage record, so the ledger and the counter agree exactly.
    requests: counter("requests_total", "Lookups with a usage record, by channel, operation and final status.", ["channel", "operation", "status"]),
    requestDuration: histogram("request_duration_seconds", "Lookup latency as the usage record has it, by channel and operation.", ["channel", "operation"], LATENCY_BUCKETS_S),
    creditsCharged: counter("credits_charged_total", "Credits charged for lookups, by channel and operation.", ["channel", "operation"]),
    refusals: counter("refusals_total", "Lookups refused before any work: 401 key, 402 credits, 403 access, 429 rate, by channel.", ["channel", "reason"]),
    // The upstream provider.
    upstreamRequests: counter("upstream_requests_total", "Calls to the upstream provider, by operation and outcome (ok, not_found, error).", ["operation", "outcome"]),
    upstreamDuration: histogram("upstream_request_duration_seconds", "Upstream call latency, retries included, by operation.", ["operation"], LATENCY_BUCKETS_S),
    upstreamErrors: counter("upstream_errors_total", "Failed upstream calls by kind: timeout, network, status_5xx, status_4xx, rate_limited, breaker_open, invalid_answer.", ["kind"]),
    upstreamCircuitState: gauge("upstream_circuit_state", "The upstream circuit breaker: 0 closed, 1 half-open, 2 open (absent: no upstream).", []),
    cacheLookups: counter("cache_lookups_total", "Upstream record cache lookups, by result (hit, miss, stale).", ["result"]),
    singleFlightJoins: counter("single_flight_joins_total", "Lookups that joined an identical upstream call already in flight instead of making their own.", []),
    // Batches.
    batches: gauge("batches", "Batches of the whole service by state (queued, running), as the database has them.", ["state"]),
    batchesRunningHere: gauge("batches_running_here", "Batches this instance runs now.", []),
    batchLanesInFlight: gauge("batch_lanes_in_flight", "Batch lookups this instance has in flight now.", []),
    batchInputsDone: counter("batch_inputs_done_total", "Batch inputs finished by this instance (rate: inputs per second), by outcome (ok, failed).", ["outcome"]),
    // The database.
    dbStatementDuration: histogram("db_statement_duration_seconds", "Statement latency seen by the app, queueing included, by database (pglite, postgres) and kind (query, long_read, transaction).", ["database", "kind"], DB_BUCKETS_S),
    dbWorkerQueueDepth: gauge("db_worker_queue_depth", "Statements waiting for or running on the embedded database's thread.", []),
    dbLongReadWaits: counter("db_long_read_waits_total", "Pages of long reads (exports, result files) that had to wait for the embedded database to be free.", []),
    dbLongReadWaitSeconds: counter("db_long_read_wait_seconds_total", "Seconds pages of long reads waited for the embedded database.", []),
    exportGateInUse: gauge("export_gate_in_use", "Long downloads (usage exports, batch results) streaming now.", []),
    exportGateWaiting: gauge("export_gate_waiting", "Long downloads waiting for a slot.", []),
    exportGateRefusals: counter("export_gate_refusals_total", "Long downloads refused with 429 because no slot freed in time.", []),
    // The process front.
    openConnections: gauge("open_connections", "Open client connections of this instance.", []),
    connectionRefusals: counter("connection_refusals_total", "Connections closed at once by the front, by reason (max_connections, per_address).", ["reason"]),
    httpRequests: counter("http_requests_total", "Every HTTP request the front answered, by area (v1, mcp, console, probe, metrics) and status class.", ["area", "status_class"]),
    // The instance.
    buildInfo: gauge("build_info", "1, labelled with this instance's version and Node.js version.", ["version", "node"]),
    ready: gauge("ready", "1 while this instance is ready for traffic (GET /readyz answers 200), 0 otherwise.", []),
    poolsLowCredits: gauge("pools_low_credits", "Workspace credit pools at or below their low-credit line (or empty), service-wide.", []),
  };
};

export type Metrics = ReturnType<typeof build>;

const holder = globalThis as typeof globalThis & { __socialLookupMetrics?: Metrics };

/** A registry of its own: counting (`enabled`) or, as with METRICS=off, doing nothing (tests). */
export const createMetrics = (enabled: boolean): Metrics => build(enabled);

/** The process's metrics, made on first use: counting unless METRICS=off. */
export const metrics = (): Metrics => {
  holder.__socialLookupMetrics ??= build(env().METRICS === "on");
  return holder.__socialLookupMetrics;
};

/**
 * prom-client's defaults that break the exposition format's naming rules (`promtool check
 * metrics` exits 3 on them): gauges named `_total`, which only counters may be. Each is the sum
 * of a gauge that stays (`sum(nodejs_active_handles)` is the number of handles), so none is lost.
 */
export const DROPPED_PROCESS_METRICS = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"] as const;

/** Node.js's own (event loop lag, heap, GC, CPU, handles) join the registry once, at start (not with METRICS=off). */
export const collectProcessMetrics = (): void => {
  const { registry, enabled } = metrics();
  if (!enabled || registry.getSingleMetric("nodejs_eventloop_lag_seconds") !== undefined) return;
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  for (const name of DROPPED_PROCESS_METRICS) registry.removeSingleMetric(name);
};

/**
 * Work a scrape waits for before it renders: gauges read from elsewhere (the database's batch
 * queue, low pools, the circuit breaker's time-based state). Each hook gets SCRAPE_HOOK_TIMEOUT_MS;
 * one that fails or is slow leaves its gauges as they were, is logged at most once a minute,
 * and never fails the scrape. Kept on globalThis for the same reason as the metrics.
 */
export type ScrapeHook = () => Promise<void> | void;

const SCRAPE_HOOK_TIMEOUT_MS = 500;
const HOOK_FAILURE_LOG_EVERY_MS = 60_000;

type HookEntry = { hook: ScrapeHook; loggedAt: number };
const hookHolder = globalThis as typeof globalThis & { __socialLookupScrapeHooks?: Set<HookEntry> };
const scrapeHooks = (): Set<HookEntry> => {
  hookHolder.__socialLookupScrapeHooks ??= new Set();
  return hookHolder.__socialLookupScrapeHooks;
};

/** Runs `hook` before every scrape; the returned function unregisters it. */
export const onScrape = (hook: ScrapeHook): (() => void) => {
  const entry: HookEntry = { hook, loggedAt: Number.NEGATIVE_INFINITY };
  scrapeHooks().add(entry);
  return () => {
    scrapeHooks().delete(entry);
  };
};

const runHook = async (entry: HookEntry): Promise<void> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`scrape hook took longer than ${SCRAPE_HOOK_TIMEOUT_MS} ms`)), SCRAPE_HOOK_TIMEOUT_MS);
  });
  try {
    await Promise.race([Promise.resolve().then(entry.hook), timedOut]);
  } catch (error) {
    const now = Date.now();
    if (now - entry.loggedAt < HOOK_FAILURE_LOG_EVERY_MS) return;
    entry.loggedAt = now;
    log.warn("metrics: a scrape hook failed; its gauges keep their last values", { error: describeError(error) });
  } finally {
    clearTimeout(timer);
  }
};

/** Brings the gauges read from elsewhere up to date, as a scrape does first (the system page's snapshot too). */
export const runScrapeHooks = async (): Promise<void> => {
  await Promise.all([...scrapeHooks()].map(runHook));
};

/** The scrape: the Prometheus text format and its content type, after every scrape hook. */
export const exposition = async (): Promise<{ contentType: string; body: string }> => {
  await runScrapeHooks();
  const { registry } = metrics();
  return { contentType: registry.contentType, body: await registry.metrics() };
};

/** Every metric name the registry exports (dashboards and alert rules may name only these). */
export const exportedMetricNames = (): string[] => {
  collectProcessMetrics();
  return metrics().registry.getMetricsAsArray().map((metric) => metric.name);
};
