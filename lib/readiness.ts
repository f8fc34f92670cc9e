import type { Redis } from "ioredis";
import { getDb, migrations } from "@/lib/database";
import { env } from "@/lib/env";
import { metrics } from "@/lib/metrics/registry";
import { createRedisClient } from "@/lib/ratelimit/limiter";

/**
 * Whether this instance should be sent traffic (GET /readyz, the system page, the `ready`
 * metric). Each check names what failed, so a 503 says why. A detail is a few words for an
 * operator: never a URL, a password or an error's full text (a driver's message may quote them).
 */
export type ReadinessCheckName = "migrations" | "database" | "embedded_worker" | "redis" | "draining";

/** `configured: false`: nothing to check on this instance (no REDIS_URL; no embedded worker on PostgreSQL): it passes. */
export type ReadinessCheck = { name: ReadinessCheckName; ok: boolean; detail: string; configured: boolean };

export type Readiness = { ready: boolean; checks: ReadinessCheck[] };

/** A database or Redis that takes longer than this to answer counts as failing: a balancer's probe waits no longer. */
export const CHECK_TIMEOUT_MS = 1000;

const holder = globalThis as typeof globalThis & {
  __socialLookupDraining?: boolean;
  /** Once every migration was seen recorded: a schema is never un-migrated under a running instance. */
  __socialLookupMigrated?: boolean;
  /** A connection of the readiness check's own: the limiter's may be busy, and its state says nothing of now. */
  __socialLookupReadinessRedis?: Promise<Redis>;
};

/** From SIGTERM on: not ready, so balancers stop sending new requests while in-flight ones finish. */
export const startDraining = (): void => {
  holder.__socialLookupDraining = true;
};

export const isDraining = (): boolean => holder.__socialLookupDraining === true;

class CheckTimeout extends Error {}

/** `work`, or a CheckTimeout once CHECK_TIMEOUT_MS have passed (the work itself is not stopped). */
const withinTimeout = <T>(work: () => Promise<T>): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new CheckTimeout()), CHECK_TIMEOUT_MS);
    work().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

/** A short, secret-free word for a failure: a timeout, an errno or SQLSTATE code, or the error's class. */
const failure = (error: unknown): string => {
  if (error instanceof CheckTimeout) return `no answer within ${CHECK_TIMEOUT_MS} ms`;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Za-z0-9_]{1,24}$/.test(code)) return `failed (${code})`;
  return error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name) ? `failed (${error.name})` : "failed";
};

const elapsedSince = (startedPerf: number): number => Math.round(performance.now() - startedPerf);

const checkDatabase = async (): Promise<ReadinessCheck> => {
  const startedPerf = performance.now();
  try {
    await withinTimeout(async () => (await getDb()).query("SELECT 1"));
    return { name: "database", ok: true, detail: `answered in ${elapsedSince(startedPerf)} ms`, configured: true };
  } catch (error) {
    return { name: "database", ok: false, detail: failure(error), configured: true };
  }
};

const checkMigrations = async (): Promise<ReadinessCheck> => {
  if (holder.__socialLookupMigrated) return { name: "migrations", ok: true, detail: `${migrations.length} applied`, configured: true };
  try {
    const rows = await withinTimeout(async () => (await getDb()).query<{ id: string }>("SELECT id FROM schema_migrations"));
    const recorded = new Set(rows.map((row) => row.id));
    const missing = migrations.filter((migration) => !recorded.has(migration.id));
    const first = missing[0];
    if (first !== undefined) return { name: "migrations", ok: false, detail: `${missing.length} not applied (first: ${first.id})`, configured: true };
    holder.__socialLookupMigrated = true;
    return { name: "migrations", ok: true, detail: `${migrations.length} applied`, configured: true };
  } catch (error) {
    // 42P01: no schema_migrations table, so nothing was ever applied.
    const code = (error as { code?: unknown } | null)?.code;
    return { name: "migrations", ok: false, detail: code === "42P01" ? "none applied" : failure(error), configured: true };
  }
};

const checkEmbeddedWorker = async (): Promise<ReadinessCheck> => {
  if (env().DATABASE_URL !== undefined) return { name: "embedded_worker", ok: true, detail: "absent (PostgreSQL)", configured: false };
  try {
    const state = (await withinTimeout(getDb)).embeddedWorker();
    return { name: "embedded_worker", ok: state !== "stopped", detail: state, configured: true };
  } catch (error) {
    return { name: "embedded_worker", ok: false, detail: error instanceof CheckTimeout ? "still starting" : "not started", configured: true };
  }
};

/** Connected, or connecting for the first time: worth waiting for. Reconnecting (or closed): unreachable now. */
const UNREACHABLE = new Set(["reconnecting", "close", "end"]);

/** Waits for a new connection to be up, then asks for a PONG; a refused connection fails at once. */
const ping = async (redis: Redis): Promise<void> => {
  if (UNREACHABLE.has(redis.status)) throw new Error("unreachable");
  if (redis.status !== "ready") {
    await new Promise<void>((resolve, reject) => {
      const settle = (error: Error | null) => {
        redis.off("ready", onReady);
        redis.off("error", onError);
        redis.off("end", onError);
        clearTimeout(timer);
        if (error === null) resolve();
        else reject(error);
      };
      const onReady = () => settle(null);
      const onError = () => settle(new Error("unreachable"));
      redis.once("ready", onReady);
      redis.once("error", onError);
      redis.once("end", onError);
      // withinTimeout gives up at the same moment; this only stops listening.
      const timer = setTimeout(() => settle(new CheckTimeout()), CHECK_TIMEOUT_MS);
    });
  }
  await redis.ping();
};

const checkRedis = async (): Promise<ReadinessCheck> => {
  const url = env().REDIS_URL;
  if (url === undefined) return { name: "redis", ok: true, detail: "not configured", configured: false };
  holder.__socialLookupReadinessRedis ??= createRedisClient(url);
  try {
    const redis = await holder.__socialLookupReadinessRedis;
    const startedPerf = performance.now();
    await withinTimeout(() => ping(redis));
    return { name: "redis", ok: true, detail: `answered in ${elapsedSince(startedPerf)} ms`, configured: true };
  } catch (error) {
    return { name: "redis", ok: false, detail: error instanceof CheckTimeout ? failure(error) : "unreachable", configured: true };
  }
};

const checkDraining = (): ReadinessCheck =>
  isDraining()
    ? { name: "draining", ok: false, detail: "stopping: finishing requests in flight", configured: true }
    : { name: "draining", ok: true, detail: "serving", configured: true };

/** Every check, at once; each bounded by CHECK_TIMEOUT_MS, so the whole answers within about a second. */
export const readiness = async (): Promise<Readiness> => {
  const checks = await Promise.all([checkMigrations(), checkDatabase(), checkEmbeddedWorker(), checkRedis(), checkDraining()]);
  const ready = checks.every((check) => check.ok);
  metrics().ready.set(ready ? 1 : 0);
  return { ready, checks };
};
