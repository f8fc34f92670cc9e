import os from "node:os";
import { getDb } from "@/lib/database";
import { env, type Env } from "@/lib/env";
import { instanceName } from "@/lib/log";
import { releaseAllLeases } from "./lease";
import { watchBatchQueue } from "./queue-gauge";
import { createRunner, type Runner, type RunnerSettings } from "./runner";
import type { BatchServices } from "./services";

/**
 * The process's one batch runner, started with the server's background jobs (lib/jobs.ts), which
 * hand it the services its lookups run on. Kept on globalThis: Next may load this module once per
 * route bundle, and the routes that create or resume a batch wake the same runner that
 * instrumentation started.
 */
const POLL_MS = 1000;

/**
 * A bound on one lookup: the settle step gives up after DB_TIMEOUT_MS (twice: reserve and
 * commit), a provider call after its timeout, retries and their waits.
 */
const attemptSettleMs = (config: Env): number => {
  const database = 2 * config.DB_TIMEOUT_MS + 1000;
  if (config.DATA_SOURCE === "store") return database;
  return database + config.UPSTREAM_TIMEOUT_MS * (config.UPSTREAM_RETRIES + 1) + config.UPSTREAM_MAX_RETRY_WAIT_MS * config.UPSTREAM_RETRIES;
};

/** The runner's settings from the configuration; its lease owners name the instance as its log lines do. */
export const runnerSettings = (config: Env, hostName: string): RunnerSettings => ({
  leaseMs: config.BATCH_LEASE_MS,
  perInstance: config.BATCH_MAX_RUNNING_PER_INSTANCE,
  perUser: config.BATCH_MAX_RUNNING_PER_USER,
  concurrency: config.BATCH_CONCURRENCY,
  lookupsPerInstance: config.UPSTREAM_MAX_CONCURRENCY,
  pollMs: POLL_MS,
  instanceName: instanceName(config, hostName),
  attemptSettleMs: attemptSettleMs(config),
});

const holder = globalThis as typeof globalThis & { __socialLookupBatchRunner?: Promise<Runner> };

export const startBatchRunner = (services: () => Promise<BatchServices>): Promise<Runner> => {
  holder.__socialLookupBatchRunner ??= (async () => {
    const config = env();
    const db = await getDb();
    // An embedded database belongs to this process alone: any lease in it is a dead process's.
    if (db.kind === "pglite") await releaseAllLeases(db);
    watchBatchQueue(getDb);
    return createRunner({ db: getDb, services, settings: runnerSettings(config, os.hostname()) });
  })();
  return holder.__socialLookupBatchRunner;
};

/**
 * Claims nothing more, lets the lookups in flight end and be recorded, and releases each running
 * batch's lease, so another instance takes it over at its next poll rather than when the lease
 * would have lapsed (shutdown, server.ts).
 */
export const stopBatchRunner = async (): Promise<void> => {
  const runner = holder.__socialLookupBatchRunner;
  if (runner !== undefined) await (await runner).stop();
};

/** Starts looking for work now rather than at the next poll (a batch was created or resumed). */
export const wakeBatchRunner = (): void => {
  void holder.__socialLookupBatchRunner?.then((runner) => runner.wake());
};
