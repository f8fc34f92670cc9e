/**
 * What an instance reports of itself (the `snapshot` of its service_instances row) and what
 * GET /api/admin/system answers. Plain types: the console's page imports them and nothing else of
 * lib/system.
 */
/** `configured: false`: nothing to check there (no Redis configured; no embedded worker on PostgreSQL); absent in older rows. */
export type SnapshotReadinessCheck = { name: string; ok: boolean; detail: string; configured?: boolean };

export type SnapshotFigures = {
  /** The seconds the rates and quantiles cover: the last minute, or less while the process is younger. */
  windowS: number;
  /** Lookups (every channel) since this instance started. */
  requestsTotal: number;
  requestsInWindow: number;
  requestsPerSecond: number;
  /** Share of the window's lookups answered with a status ≥ 500; null without lookups. */
  errorRate: number | null;
  /** Share of the window's lookups answered with any status but 200; null without lookups. */
  non200Rate: number | null;
  p50LatencyMs: number | null;
  p99LatencyMs: number | null;
  /** Batches of the whole service, as the database has them; null: not measured. */
  batchesQueued: number | null;
  batchesRunning: number | null;
  batchesRunningHere: number | null;
  /** Statements waiting for or on the embedded database's thread; null on PostgreSQL or not measured. */
  dbWorkerQueueDepth: number | null;
  eventLoopLagMs: number | null;
  eventLoopLagP99Ms: number | null;
};

export type SystemSnapshot = {
  /** The shape of this object; a reader skips the figures of one it does not know. */
  format: 1;
  version: string;
  /** Next's build id, when the instance serves a build. */
  buildId: string | null;
  nodeVersion: string;
  database: "pglite" | "postgres";
  uptimeS: number;
  /** null: the checks could not be run (their error is in `readinessError`). */
  readiness: { ready: boolean; checks: SnapshotReadinessCheck[] } | null;
  readinessError: string | null;
  /** "off": METRICS=off, nothing is counted, so there are no figures. */
  metrics: "on" | "off";
  figures: SnapshotFigures | null;
};

export type InstanceView = {
  /** INSTANCE_ID, or host:port. */
  name: string;
  /** This start of it: a restart with the same name replaces the card of the one before. */
  startId: string;
  version: string;
  nodeVersion: string;
  startedAt: string;
  seenAt: string;
  /** Seconds since its last snapshot, by the database's clock. */
  seenAgoS: number;
  /** Not seen for longer than `liveWithinS`: stopped, killed or cut off from the database. */
  stale: boolean;
  /** The instance that answered this request. */
  current: boolean;
  /** null when the row holds a snapshot this version cannot read (a newer or older instance). */
  snapshot: SystemSnapshot | null;
};

export type SystemView = {
  /** Live first (by name), then the stale ones, most recently seen first. */
  instances: InstanceView[];
  liveWithinS: number;
  staleShownForS: number;
  snapshotEveryS: number;
};
