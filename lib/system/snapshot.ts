import { gaugeOf, METRIC, type Families } from "./metric-families";
import { baselineOf, keptSamples, sampleTraffic, trafficFigures, type TrafficSample } from "./traffic";
import type { SnapshotFigures, SnapshotReadinessCheck, SystemSnapshot } from "./view";

/**
 * One instance's snapshot, made from its metrics and readiness (pure: lib/system/publisher.ts
 * gathers the inputs and keeps the samples between calls).
 */
export type SnapshotInput = {
  nowMs: number;
  startedAtMs: number;
  version: string;
  buildId: string | null;
  nodeVersion: string;
  database: "pglite" | "postgres";
  readiness: { ready: boolean; checks: readonly SnapshotReadinessCheck[] } | { error: string };
  metrics: "on" | "off";
  families: Families;
  /** The event loop's delay since the last snapshot (lib/system/event-loop.ts); null: not measured yet. */
  eventLoop: { meanMs: number; p99Ms: number } | null;
  /** The samples kept since the last snapshot, oldest first. */
  samples: readonly TrafficSample[];
};

export type SnapshotResult = { snapshot: SystemSnapshot; samples: TrafficSample[] };

const figuresOf = (input: SnapshotInput, latest: TrafficSample): SnapshotFigures => {
  const baseline = baselineOf(input.samples, input.nowMs) ?? latest;
  const state = (wanted: string) => (labels: Readonly<Record<string, string | number | undefined>>) => labels.state === wanted;
  return {
    ...trafficFigures(latest, baseline),
    batchesQueued: gaugeOf(input.families, METRIC.batches, state("queued")),
    batchesRunning: gaugeOf(input.families, METRIC.batches, state("running")),
    batchesRunningHere: gaugeOf(input.families, METRIC.batchesRunningHere),
    // PostgreSQL has no embedded worker: its gauge would only ever say 0.
    dbWorkerQueueDepth: input.database === "pglite" ? gaugeOf(input.families, METRIC.dbWorkerQueueDepth) : null,
    eventLoopLagMs: input.eventLoop?.meanMs ?? null,
    eventLoopLagP99Ms: input.eventLoop?.p99Ms ?? null,
  };
};

export const buildSnapshot = (input: SnapshotInput): SnapshotResult => {
  const readiness = "error" in input.readiness ? null : { ready: input.readiness.ready, checks: [...input.readiness.checks] };
  const base = {
    format: 1 as const,
    version: input.version,
    buildId: input.buildId,
    nodeVersion: input.nodeVersion,
    database: input.database,
    uptimeS: Math.max(0, Math.round((input.nowMs - input.startedAtMs) / 1000)),
    readiness,
    readinessError: "error" in input.readiness ? input.readiness.error : null,
    metrics: input.metrics,
  };
  if (input.metrics === "off") return { snapshot: { ...base, figures: null }, samples: [] };
  const latest = sampleTraffic(input.families, input.nowMs);
  return { snapshot: { ...base, figures: figuresOf(input, latest) }, samples: keptSamples(input.samples, latest) };
};
