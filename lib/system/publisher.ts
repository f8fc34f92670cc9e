import type { Db } from "@/lib/database";
import { env } from "@/lib/env";
import { metrics, runScrapeHooks } from "@/lib/metrics/registry";
import { eventLoopDelaySinceLast } from "./event-loop";
import { readiness } from "@/lib/readiness";
import { instanceIdentity, type InstanceIdentity } from "./identity";
import { readFamilies, type FamilySource } from "./metric-families";
import { buildSnapshot } from "./snapshot";
import { zeroSample, type TrafficSample } from "./traffic";
import type { SnapshotReadinessCheck, SystemSnapshot } from "./view";

/**
 * The system page's background job (lib/jobs.ts runs it every SNAPSHOT_EVERY_MS): this instance
 * writes its snapshot into its service_instances row, and every so often deletes the rows of
 * instances unseen for a day. The samples the rates are computed from stay in this process.
 */
export const SNAPSHOT_EVERY_MS = 5_000;
export const FORGET_AFTER_S = 24 * 60 * 60;
const PRUNE_EVERY_MS = 10 * 60_000;

type PublisherState = { samples: TrafficSample[]; prunedAtMs: number };

export type PublishDeps = {
  db: () => Promise<Db>;
  identity: InstanceIdentity;
  metricsMode: "on" | "off";
  registry: FamilySource;
  /** Brings gauges read from elsewhere up to date before they are read, as a scrape does. */
  refresh: () => Promise<unknown>;
  readiness: () => Promise<{ ready: boolean; checks: readonly SnapshotReadinessCheck[] }>;
  now: () => number;
};

const checkedReadiness = async (deps: PublishDeps) => {
  try {
    return await deps.readiness();
  } catch (error) {
    // The error's class only: a driver's message may quote a URL or a password.
    return { error: error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name) ? `failed (${error.name})` : "failed" };
  }
};

/** A refresh that fails leaves the gauges as they were: the snapshot is still worth writing. */
const refreshed = (deps: PublishDeps): Promise<unknown> => deps.refresh().catch(() => undefined);

/** One snapshot of this instance, its samples kept in `state` for the next one. */
export const takeSnapshot = async (deps: PublishDeps, database: Db["kind"], state: PublisherState): Promise<SystemSnapshot> => {
  const health = await checkedReadiness(deps);
  const nowMs = deps.now();
  const { snapshot, samples } = buildSnapshot({
    nowMs,
    startedAtMs: deps.identity.startedAtMs,
    version: deps.identity.version,
    buildId: deps.identity.buildId,
    nodeVersion: deps.identity.nodeVersion,
    database,
    readiness: health,
    metrics: deps.metricsMode,
    families: deps.metricsMode === "on" ? await refreshed(deps).then(() => readFamilies(deps.registry)) : new Map(),
    eventLoop: deps.metricsMode === "on" ? eventLoopDelaySinceLast() : null,
    samples: state.samples.length > 0 ? state.samples : [zeroSample(deps.identity.startedAtMs)],
  });
  state.samples = samples;
  return snapshot;
};

export const newPublisherState = (): PublisherState => ({ samples: [], prunedAtMs: 0 });

export const publishSnapshot = async (deps: PublishDeps, state: PublisherState): Promise<SystemSnapshot> => {
  const db = await deps.db();
  const snapshot = await takeSnapshot(deps, db.kind, state);
  const { identity } = deps;
  await db.query(
    `INSERT INTO service_instances (instance, start_id, version, node_version, started_at, seen_at, snapshot)
     VALUES ($1, $2, $3, $4, $5, now(), $6::json)
     ON CONFLICT (instance, start_id) DO UPDATE SET seen_at = now(), snapshot = EXCLUDED.snapshot`,
    [identity.name, identity.startId, identity.version, identity.nodeVersion, new Date(identity.startedAtMs).toISOString(), JSON.stringify(snapshot)],
  );
  if (deps.now() - state.prunedAtMs >= PRUNE_EVERY_MS) {
    state.prunedAtMs = deps.now();
    await db.query("DELETE FROM service_instances WHERE seen_at < now() - $1::integer * interval '1 second'", [FORGET_AFTER_S]);
  }
  return snapshot;
};

const holder = globalThis as typeof globalThis & { __socialLookupSystemState?: PublisherState };

/** The job as lib/jobs.ts registers it: this process's identity, registry, readiness and database. */
export const publishSystemSnapshot = async (db: () => Promise<Db>): Promise<void> => {
  holder.__socialLookupSystemState ??= newPublisherState();
  await publishSnapshot(
    {
      db,
      identity: instanceIdentity(),
      metricsMode: env().METRICS,
      registry: metrics().registry,
      // The scrape's hooks (the database's batch queue, low pools, the breaker), not the scrape
      // itself (exposition): rendering runs every collect, and some reset what the next scrape reports.
      refresh: runScrapeHooks,
      readiness,
      now: Date.now,
    },
    holder.__socialLookupSystemState,
  );
};
