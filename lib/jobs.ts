import crypto from "node:crypto";
import { getDb } from "@/lib/database";
import { claimJobLease } from "@/lib/job-lease";
import { sweepSuppressed } from "@/lib/privacy/erase";
import { sweepRetention } from "@/lib/privacy/retention";
import { describeError, log } from "@/lib/log";
import { createWebhookEvents } from "@/lib/alerts/webhook-events";
import { startAlertWorker } from "@/lib/alerts/webhooks";
import type { BatchLookup } from "@/lib/batches/services";
import { startBatchRunner, stopBatchRunner } from "@/lib/batches/start";
import { registerBatchWebhooks } from "@/lib/batches/webhook";
import { refillDueKeys, refillDuePools } from "@/lib/keys/refill";
import { env } from "@/lib/env";
import { services, type Services } from "@/lib/services";
import { publishSystemSnapshot, SNAPSHOT_EVERY_MS } from "@/lib/system/publisher";
import { bootstrapAdmin } from "@/lib/users/bootstrap";
import { watchLowPools } from "@/lib/workspaces/low-pools";

/**
 * Background work of a server process, started once at boot (instrumentation.ts): warming the
 * services (so the database lock and migrations happen at start, not on the first request),
 * delivering low-credit webhooks, refunding reservations a dead instance left pending, and
 * running batch lookups (lib/batches), including those a restart or a dead instance left running.
 */
const SWEEP_EVERY_MS = 60_000;
const RESERVATION_TIMEOUT = "2 minutes";
// Refills run within this long of each period start (UTC); once per period whatever the instances.
const REFILL_EVERY_MS = 30_000;

type Job = () => Promise<void>;
/**
 * On globalThis: instrumentation starts the jobs inside Next's bundle, and server.ts, which stops
 * them, loads its own copy of this module. `stops` holds how to stop each job that was started.
 */
const holder = globalThis as typeof globalThis & { __socialLookupJobs?: Set<string>; __socialLookupJobStops?: Map<string, () => Promise<void>> };
const started = (holder.__socialLookupJobs ??= new Set<string>());
const stops = (holder.__socialLookupJobStops ??= new Map<string, () => Promise<void>>());

export const every = (name: string, intervalMs: number, job: Job): void => {
  if (started.has(name)) return;
  started.add(name);
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    if (stopped) return;
    running = job().catch((error: unknown) => log.warn(`background job ${name} failed`, { error: describeError(error) }));
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  stops.set(name, async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  });
  run();
};

export const sweepStaleReservations = async (): Promise<number> => {
  const rows = await (await getDb()).query<{ swept: number }>("SELECT sweep_stale_reservations($1::interval) AS swept", [
    RESERVATION_TIMEOUT,
  ]);
  const swept = rows[0]?.swept ?? 0;
  if (swept > 0) log.warn("refunded abandoned reservations", { swept });
  return swept;
};

// The retention sweep (lib/privacy/retention.ts) runs on the instance holding its lease.
const RETENTION_EVERY_MS = 15 * 60_000;
const RETENTION_LEASE_MS = 2 * RETENTION_EVERY_MS;
const instanceId = `${process.pid}-${crypto.randomUUID()}`;

export const sweepRetentionIfLeased = async (): Promise<void> => {
  const db = await getDb();
  if (!(await claimJobLease(db, "retention-sweep", instanceId, RETENTION_LEASE_MS))) return;
  const config = env();
  const report = await sweepRetention(
    db,
    {
      batchResultsDays: config.BATCH_RESULTS_RETENTION_DAYS,
      requestLogDays: config.REQUEST_LOG_RETENTION_DAYS,
      upstreamCacheDays: config.UPSTREAM_CACHE_MAX_AGE_DAYS,
    },
    new Date(),
  );
  const suppressed = await sweepSuppressed(db);
  if (suppressed > 0 || Object.values(report).some((count) => count > 0)) log.info("retention sweep", { ...report, suppressed });
};

/**
 * What the jobs take from the edges above them: how a batch's page is looked up (the /v1
 * pipeline's, lib/api/batch-lookup.ts), on this process's services.
 */
export type BackgroundJobDeps = { batchLookup: (services: Services) => BatchLookup };

export const startBackgroundJobs = async (deps: BackgroundJobDeps): Promise<void> => {
  await services();
  // `npm start` bootstraps before serving; a server started any other way (container,
  // cluster) does it here. The generated password is printed once, by whoever creates it.
  const config = env();
  const admin = await bootstrapAdmin(await getDb(), {
    email: config.ADMIN_EMAIL,
    password: config.ADMIN_PASSWORD,
    dataDir: config.dataDir,
  });
  if (admin.kind === "generated") {
    log.warn(`created the administrator ${admin.email} with a generated password: it is in ${admin.file} (change it after signing in)`, { file: admin.file });
  }
  if (!started.has("alert-webhooks")) {
    started.add("alert-webhooks");
    const events = createWebhookEvents();
    registerBatchWebhooks(events, config.publicUrl);
    const worker = startAlertWorker(getDb, { events });
    stops.set("alert-webhooks", () => worker.stop());
  }
  if (!started.has("low-pools-gauge")) {
    started.add("low-pools-gauge");
    // Read at scrape time: pools_low_credits is the service's, whichever instance is scraped.
    watchLowPools(getDb);
  }
  stops.set("batch-runner", stopBatchRunner);
  await startBatchRunner(async () => {
    const ready = await services();
    return { lookup: deps.batchLookup(ready), connector: ready.connector, cursors: ready.cursors, eventSiteHosts: ready.eventSiteHosts };
  });
  every("sweep-reservations", SWEEP_EVERY_MS, async () => {
    await sweepStaleReservations();
  });
  every("retention-sweep", RETENTION_EVERY_MS, sweepRetentionIfLeased);
  every("refill-keys", REFILL_EVERY_MS, async () => {
    await refillDueKeys(await getDb());
    await refillDuePools(await getDb());
  });
  // The system page: this instance's snapshot in the database, where every instance reads it.
  every("system-snapshot", SNAPSHOT_EVERY_MS, () => publishSystemSnapshot(getDb));
};

/**
 * Stops every background job this process started, each letting the round it is in finish: the
 * batch runner ends its lookups in flight and releases its batches (another instance takes them
 * over at once), the webhook worker ends its deliveries. A job that fails to stop is logged.
 */
export const stopBackgroundJobs = async (): Promise<void> => {
  const running = [...stops.entries()];
  stops.clear();
  await Promise.all(
    running.map(([name, stop]) => stop().catch((error: unknown) => log.warn(`background job ${name} did not stop cleanly`, { error: describeError(error) }))),
  );
};
