import { beforeEach, describe, expect, it } from "vitest";
import { metrics } from "@/lib/metrics/registry";
import { readFamilies, type Families } from "./metric-families";
import { buildSnapshot, type SnapshotInput } from "./snapshot";
import { sampleTraffic, trafficFigures, WINDOW_MS, zeroSample, type TrafficSample } from "./traffic";

/**
 * The snapshot's figures from the service's own registry (lib/metrics/registry.ts: the metrics
 * the system page names must be the ones the process moves), taken as the publisher takes them:
 * one sample every 5 s, rates and quantiles over the last minute of samples.
 */
const START_MS = 1_700_000_000_000;

const input = (families: Families, nowMs: number, samples: readonly TrafficSample[], overrides: Partial<SnapshotInput> = {}): SnapshotInput => ({
  nowMs,
  startedAtMs: START_MS,
  version: "1.2.3",
  buildId: "build-x",
  nodeVersion: "v22.0.0",
  database: "pglite",
  readiness: { ready: true, checks: [{ name: "database", ok: true, detail: "answers" }] },
  metrics: "on",
  families,
  eventLoop: null,
  samples,
  ...overrides,
});

/** `count` lookups of one channel and operation, each with a status and a latency. */
const lookups = (count: number, status: number, latencyS: number, channel = "api") => {
  for (let index = 0; index < count; index += 1) {
    metrics().requests.inc({ channel, operation: "followers", status: String(status) });
    metrics().requestDuration.observe({ channel, operation: "followers" }, latencyS);
  }
};

const families = () => readFamilies(metrics().registry);

beforeEach(() => {
  metrics().registry.resetMetrics();
});

describe("the snapshot's traffic figures", () => {
  it("count requests per second, 5xx and non-200 shares over the window, every channel together", async () => {
    const baseline = sampleTraffic(await families(), START_MS);
    lookups(80, 200, 0.004);
    lookups(10, 404, 0.002, "console");
    lookups(6, 500, 0.2, "batch");
    lookups(4, 402, 0.001, "mcp");
    const { snapshot } = buildSnapshot(input(await families(), START_MS + 20_000, [baseline]));
    expect(snapshot.figures).toMatchObject({
      windowS: 20,
      requestsTotal: 100,
      requestsInWindow: 100,
      requestsPerSecond: 5,
      errorRate: 0.06,
      non200Rate: 0.2,
    });
  });

  it("measure the last minute only: what came before the newest sample a minute old is left out", async () => {
    const samples: TrafficSample[] = [zeroSample(START_MS)];
    lookups(600, 500, 1.5);
    samples.push(sampleTraffic(await families(), START_MS + 10_000));
    lookups(120, 200, 0.03);
    const nowMs = START_MS + 10_000 + WINDOW_MS;
    const { snapshot, samples: kept } = buildSnapshot(input(await families(), nowMs, samples));
    expect(snapshot.figures).toMatchObject({ windowS: 60, requestsTotal: 720, requestsInWindow: 120, requestsPerSecond: 2, errorRate: 0, non200Rate: 0 });
    // 0.03 s lies in the (0.025, 0.05] bucket: interpolated as histogram_quantile does.
    expect(snapshot.figures?.p50LatencyMs).toBeCloseTo((0.025 + 0.025 * 0.5) * 1000, 6);
    expect(snapshot.figures?.p99LatencyMs).toBeCloseTo((0.025 + 0.025 * 0.99) * 1000, 6);
    // The zero sample is no longer needed; the one a minute old is the next baseline.
    expect(kept.map((sample) => sample.atMs)).toEqual([START_MS + 10_000, nowMs]);
  });

  it("take p50 and p99 from the buckets' increase in the window, not from their totals", async () => {
    lookups(1000, 200, 4); // (2.5, 5]: before the window
    const before = sampleTraffic(await families(), START_MS);
    lookups(98, 200, 0.0008); // (0, 0.001]
    lookups(2, 200, 0.7); // (0.5, 1]
    const figures = trafficFigures(sampleTraffic(await families(), START_MS + WINDOW_MS), before);
    expect(figures.requestsInWindow).toBe(100);
    expect(figures.p50LatencyMs).toBeCloseTo(0.001 * (50 / 98) * 1000, 6);
    // Rank 99 is the first of the two slow ones: the middle of (0.5, 1].
    expect(figures.p99LatencyMs).toBeCloseTo((0.5 + 0.5 * (1 / 2)) * 1000, 6);
  });

  it("answer the highest finite bound for a quantile beyond the last bucket, as Prometheus does", async () => {
    const before = sampleTraffic(await families(), START_MS);
    lookups(10, 200, 30);
    const figures = trafficFigures(sampleTraffic(await families(), START_MS + 5_000), before);
    expect(figures.p50LatencyMs).toBe(10_000);
  });

  it("measure a process younger than a minute from its start, its counters' zero", async () => {
    lookups(30, 200, 0.01);
    const { snapshot, samples } = buildSnapshot(input(await families(), START_MS + 15_000, [zeroSample(START_MS)]));
    expect(snapshot.figures).toMatchObject({ windowS: 15, requestsInWindow: 30, requestsPerSecond: 2 });
    expect(snapshot.uptimeS).toBe(15);
    expect(samples).toHaveLength(2);
  });

  it("count a counter found lower than before as reset, as rate() does", () => {
    const before: TrafficSample = { atMs: START_MS, requests: 500, serverErrors: 50, non200: 60, latency: [{ upperBound: Number.POSITIVE_INFINITY, count: 500 }] };
    const after: TrafficSample = { atMs: START_MS + 10_000, requests: 20, serverErrors: 1, non200: 2, latency: [{ upperBound: 0.1, count: 20 }, { upperBound: Number.POSITIVE_INFINITY, count: 20 }] };
    expect(trafficFigures(after, before)).toMatchObject({ requestsInWindow: 20, requestsPerSecond: 2, errorRate: 0.05, non200Rate: 0.1, p50LatencyMs: 50 });
  });

  it("have no rates and no quantiles without requests, and rates of 0 in a window of no length", async () => {
    const { snapshot } = buildSnapshot(input(await families(), START_MS, []));
    expect(snapshot.figures).toMatchObject({ windowS: 0, requestsTotal: 0, requestsPerSecond: 0, errorRate: null, non200Rate: null, p50LatencyMs: null, p99LatencyMs: null });
  });
});

describe("the snapshot's gauges", () => {
  it("read the batch queue, the embedded database's worker queue and the event loop's lag", async () => {
    metrics().batches.set({ state: "queued" }, 7);
    metrics().batches.set({ state: "running" }, 3);
    metrics().batchesRunningHere.set(2);
    metrics().dbWorkerQueueDepth.set(5);
    const eventLoop = { meanMs: 12.5, p99Ms: 40 };
    const { snapshot } = buildSnapshot(input(await families(), START_MS + 5_000, [zeroSample(START_MS)], { eventLoop }));
    expect(snapshot.figures).toMatchObject({
      batchesQueued: 7,
      batchesRunning: 3,
      batchesRunningHere: 2,
      dbWorkerQueueDepth: 5,
      eventLoopLagMs: 12.5,
      eventLoopLagP99Ms: 40,
    });
  });

  it("are unknown where a series is absent: a labelled gauge never set, a metric the registry lacks", async () => {
    const { snapshot } = buildSnapshot(input(new Map(), START_MS + 5_000, [zeroSample(START_MS)]));
    expect(snapshot.figures).toMatchObject({
      requestsTotal: 0,
      requestsPerSecond: 0,
      errorRate: null,
      p99LatencyMs: null,
      batchesQueued: null,
      batchesRunning: null,
      batchesRunningHere: null,
      dbWorkerQueueDepth: null,
      eventLoopLagMs: null,
    });
    const { snapshot: fromRegistry } = buildSnapshot(input(await families(), START_MS + 5_000, [zeroSample(START_MS)]));
    expect(fromRegistry.figures?.batchesQueued).toBeNull();
  });

  it("say nothing of a worker queue on PostgreSQL, which has no embedded worker", async () => {
    metrics().dbWorkerQueueDepth.set(4);
    const { snapshot } = buildSnapshot(input(await families(), START_MS + 5_000, [], { database: "postgres" }));
    expect(snapshot.figures?.dbWorkerQueueDepth).toBeNull();
  });
});

describe("the snapshot", () => {
  it("carries the version, build, Node.js, uptime and the readiness checks, failing ones named", async () => {
    const readiness = { ready: false, checks: [{ name: "database", ok: true, detail: "answers" }, { name: "draining", ok: false, detail: "stopping" }] };
    const { snapshot } = buildSnapshot(input(await families(), START_MS + 3_600_400, [], { readiness }));
    expect(snapshot).toMatchObject({ format: 1, version: "1.2.3", buildId: "build-x", nodeVersion: "v22.0.0", database: "pglite", uptimeS: 3600, readiness, readinessError: null, metrics: "on" });
  });

  it("says why readiness is unknown when its checks could not run", async () => {
    const { snapshot } = buildSnapshot(input(await families(), START_MS, [], { readiness: { error: "database closed" } }));
    expect(snapshot.readiness).toBeNull();
    expect(snapshot.readinessError).toBe("database closed");
  });

  it("has no figures and keeps no samples with METRICS=off", async () => {
    lookups(10, 200, 0.01);
    const { snapshot, samples } = buildSnapshot(input(await families(), START_MS + 5_000, [zeroSample(START_MS)], { metrics: "off" }));
    expect(snapshot.metrics).toBe("off");
    expect(snapshot.figures).toBeNull();
    expect(samples).toEqual([]);
    expect(snapshot.readiness?.ready).toBe(true);
  });
});
