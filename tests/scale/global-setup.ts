import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { freePort, groupAlive, inheritedEnv, randomSecret, runLogged, signalGroup } from "@/lib/cli/processes";
import {
  createRoundRobinProxy,
  listen,
  snapshotBuild,
  spawnInstance,
  stopInstance,
  waitForForeignBuilds,
  waitHealthy,
  type RoundRobinProxy,
} from "@/scripts/cluster";
import { redisServerAvailable, startRedisServer, startTcpProxy, waitForRedis, type RedisProcess, type TcpProxy } from "./faults";
import type { ScaleCluster } from "./harness";

/**
 * The scale suite's cluster: a fresh PostgreSQL schema, the suite's own redis-server (so it can
 * be killed), a TCP proxy in front of PostgreSQL for each instance (so the network to it can be
 * cut, for every instance or one), three
 * production instances of a private copy of the build, the round-robin proxy of
 * scripts/cluster.ts, and a small control server through which the test files break and repair
 * all of it. This process owns every child process; the machine's shared PostgreSQL and Redis are
 * never stopped or reconfigured.
 *
 * When PostgreSQL (127.0.0.1:5432, database test) or Redis (127.0.0.1:6379) is unreachable, or
 * redis-server is not on PATH, it prints `SKIPPED: scale suites — <reason>` and every test skips.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const RESULTS_DIR = path.join(ROOT, "test-results", "scale");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const POSTGRES = { host: "127.0.0.1", port: 5432, user: "postgres", database: "test" };
const INSTANCES = 3;
const DB_TIMEOUT_MS = 2000;
const EVENT_SITE_HOST = "events.demo.test";
/**
 * The balancer's health checks and the instances' drain delay (rolling-restart.test.ts): a
 * stopping instance keeps serving for several probe intervals, so the balancer has stopped
 * sending before the instance stops listening.
 */
const BALANCER_PROBE = { path: "/readyz", intervalMs: 200, timeoutMs: 500 };
const DRAIN_DELAY_MS = 3000;
const SHUTDOWN_TIMEOUT_S = 20;

const log = (message: string) => console.log(`[scale-suite] ${message}`);

const postgresUrl = (port: number, schema: string): string =>
  `postgresql://${POSTGRES.user}@${POSTGRES.host}:${port}/${POSTGRES.database}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;

const adminClient = async (): Promise<pg.Client> => {
  const client = new pg.Client({ ...POSTGRES, connectionTimeoutMillis: 2000 });
  await client.connect();
  return client;
};

/** Why the suite cannot run here, or null (npm run test:proofs asks before the stage, to skip it saying why). */
export const unavailable = async (): Promise<string | null> => {
  try {
    const client = await adminClient();
    await client.query("SELECT 1");
    await client.end();
  } catch (error) {
    return `PostgreSQL at ${POSTGRES.host}:${POSTGRES.port} (database ${POSTGRES.database}) is unreachable: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (!(await waitForRedis(6379, 1500))) return "Redis at 127.0.0.1:6379 is unreachable";
  return redisServerAvailable();
};


const run = (args: readonly string[], env: Record<string, string>, logFile: string): Promise<number> =>
  runLogged(process.execPath, [TSX_CLI, ...args], { cwd: ROOT, env: { ...env, NODE_ENV: "production" }, logFile });

const tail = (file: string, lines = 30): string => {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
};

/**
 * `scripts/build.ts` (builds only when the sources changed), never alongside someone else's
 * `next build`: waits for theirs, and tries again when one started between the check and ours.
 */
const buildOnce = async (logFile: string): Promise<void> => {
  for (let attempt = 1; ; attempt += 1) {
    await waitForForeignBuilds(log);
    const before = fs.statSync(logFile).size;
    const code = await run(["scripts/build.ts"], { ...inheritedEnv(), NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" }, logFile);
    if (code === 0) return;
    const output = fs.readFileSync(logFile, "utf8").slice(before);
    if (attempt >= 5 || !output.includes("Another next build process is already running")) {
      throw new Error(`the production build failed:\n${tail(logFile)}`);
    }
    log("another `next build` started meanwhile; waiting for it and trying again");
  }
};

type Instance = { index: number; port: number; logFile: string; child: ChildProcess | null; databaseProxy: TcpProxy };

const alive = (instance: Instance): boolean =>
  instance.child !== null && instance.child.exitCode === null && instance.child.signalCode === null;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const reason = await unavailable();
  if (reason !== null) {
    console.log(`\nSKIPPED: scale suites — ${reason}\n`);
    project.provide("scaleCluster", null);
    project.provide("scaleSkipped", reason);
    return async () => undefined;
  }

  const runId = randomSecret(10).toLowerCase().replace(/[^a-z0-9]/g, "x");
  const schema = `sl_scale_${runId}`;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-scale-"));
  const appDir = path.join(runDir, "app");
  const dataDir = path.join(runDir, "data");
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const setupLog = path.join(RESULTS_DIR, "setup.log");
  fs.writeFileSync(setupLog, `# scale suite run ${runId}\n`);

  const instances: Instance[] = [];
  let redis: RedisProcess | null = null;
  // One TCP proxy in front of PostgreSQL per instance: the network of all of them can be cut at
  // once (faults.test.ts), or one instance's alone (instance-kill.test.ts holds its requests in
  // flight that way before it kills the instance).
  const tcpProxies: TcpProxy[] = [];
  let proxy: RoundRobinProxy | null = null;
  let controlServer: http.Server | null = null;
  let schemaCreated = false;

  const killAllNow = () => {
    for (const instance of instances) if (instance.child?.pid !== undefined) signalGroup(instance.child.pid, "SIGKILL");
    const redisPid = redis?.pid();
    if (redisPid) {
      try {
        process.kill(redisPid, "SIGKILL");
      } catch {
        // gone
      }
    }
  };
  process.on("exit", killAllNow);

  const teardown = async () => {
    process.off("exit", killAllNow);
    await new Promise<void>((resolve) => (controlServer ? controlServer.close(() => resolve()) : resolve()));
    await proxy?.close().catch(() => undefined);
    await Promise.all(instances.map((instance) => (instance.child?.pid === undefined ? undefined : stopInstance(instance.child.pid, 5000))));
    await redis?.stop().catch(() => undefined);
    await Promise.all(tcpProxies.map((tcpProxy) => tcpProxy.close().catch(() => undefined)));
    if (schemaCreated) {
      const client = await adminClient();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    }
    fs.rmSync(runDir, { recursive: true, force: true });
  };

  try {
    const client = await adminClient();
    try {
      await client.query(`CREATE SCHEMA ${schema}`);
      schemaCreated = true;
    } finally {
      await client.end();
    }
    const databaseUrl = postgresUrl(POSTGRES.port, schema);
    const authSecret = randomSecret(48);
    const admin = { email: "scale-suite@example.test", password: randomSecret(24) };
    const proxyPort = await freePort();
    const proxyUrl = `http://127.0.0.1:${proxyPort}`;
    const appEnv: Record<string, string> = {
      ...inheritedEnv(),
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      AUTH_SECRET: authSecret,
      PUBLIC_URL: proxyUrl,
      EVENTSITE_HOSTS: EVENT_SITE_HOST,
      DATA_SOURCE: "store",
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
      // batch-takeover.test.ts: a killed instance's batch is taken over within 3 s.
      BATCH_LEASE_MS: "3000",
      DATABASE_URL: databaseUrl,
      SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
      SHUTDOWN_TIMEOUT_S: String(SHUTDOWN_TIMEOUT_S),
    };

    // The build: current or made now (never while someone else's `next build` runs), then copied.
    const startedAt = Date.now();
    await buildOnce(setupLog);
    const buildId = await snapshotBuild(ROOT, appDir, log);
    log(`build ${buildId} copied to ${appDir} (${Date.now() - startedAt} ms)`);

    // Migrate and seed once, directly (not through the cuttable proxy).
    if ((await run(["tests/api/prepare-db.ts"], appEnv, setupLog)) !== 0) {
      throw new Error(`migrating and seeding ${schema} failed:\n${tail(setupLog)}`);
    }

    redis = await startRedisServer(await freePort());
    const instanceEnv = { ...appEnv, REDIS_URL: redis.url };

    for (let index = 0; index < INSTANCES; index += 1) {
      const port = await freePort();
      const logFile = path.join(RESULTS_DIR, `instance-${index + 1}.log`);
      fs.writeFileSync(logFile, `# instance ${index + 1} of scale run ${runId}, port ${port}\n`);
      const databaseProxy = await startTcpProxy({ host: POSTGRES.host, port: POSTGRES.port });
      tcpProxies.push(databaseProxy);
      instances.push({ index, port, logFile, child: null, databaseProxy });
    }

    const startInstance = async (instance: Instance): Promise<void> => {
      if (alive(instance)) throw new Error(`instance ${instance.index} is running`);
      fs.appendFileSync(instance.logFile, `\n==== ${new Date().toISOString()} next start -p ${instance.port}\n`);
      const fd = fs.openSync(instance.logFile, "a");
      try {
        const env = { ...instanceEnv, DATABASE_URL: postgresUrl(instance.databaseProxy.port, schema), NODE_ENV: "production" as const };
        instance.child = spawnInstance({ port: instance.port, env, appDir, output: { fd } });
      } finally {
        fs.closeSync(fd);
      }
      instance.child.unref();
      if (!(await waitHealthy(`http://127.0.0.1:${instance.port}`, 120_000, instance.child))) {
        throw new Error(`instance ${instance.index + 1} was not healthy:\n${tail(instance.logFile)}`);
      }
    };
    /** When the signal went, on the wall clock (the tests' traffic runs in another process): null when it was not running. */
    const killInstance = async (instance: Instance): Promise<{ signalledAtEpochMs: number | null }> => {
      const pid = instance.child?.pid;
      if (pid === undefined || !alive(instance)) return { signalledAtEpochMs: null };
      const signalledAtEpochMs = Date.now();
      signalGroup(pid, "SIGKILL");
      await stopInstance(pid, 0);
      instance.child = null;
      return { signalledAtEpochMs };
    };

    /**
     * SIGTERM, as an orchestrator stops an instance, and its exit: the code, and how long it took
     * (SIGKILL, and an error, when it outlives its own shutdown timeout by far).
     */
    const terminateInstance = async (instance: Instance): Promise<{ exitCode: number | null; signal: string | null; stoppedInMs: number }> => {
      const child = instance.child;
      const pid = child?.pid;
      if (!child || pid === undefined || !alive(instance)) throw new Error(`instance ${instance.index} is not running`);
      const exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) =>
        child.once("exit", (code, signal) => resolve({ exitCode: code, signal })),
      );
      const startedAt = Date.now();
      signalGroup(pid, "SIGTERM");
      const bound = new Promise<null>((resolve) => setTimeout(() => resolve(null), DRAIN_DELAY_MS + (SHUTDOWN_TIMEOUT_S + 15) * 1000).unref());
      const result = await Promise.race([exited, bound]);
      if (result === null) {
        await stopInstance(pid, 0);
        instance.child = null;
        throw new Error(`instance ${instance.index + 1} did not stop after SIGTERM:\n${tail(instance.logFile)}`);
      }
      const goneBy = Date.now() + 10_000;
      while (groupAlive(pid) && Date.now() < goneBy) await new Promise((resolve) => setTimeout(resolve, 50));
      instance.child = null;
      return { ...result, stoppedInMs: Date.now() - startedAt };
    };

    await Promise.all(instances.map(startInstance));
    proxy = createRoundRobinProxy(
      instances.map((instance) => ({ host: "127.0.0.1", port: instance.port })),
      { readiness: BALANCER_PROBE },
    );
    const balancer = proxy;
    await listen(proxy.server, proxyPort);
    log(`${INSTANCES} instances healthy on ports ${instances.map((instance) => instance.port).join(", ")} behind ${proxyUrl} (${Date.now() - startedAt} ms)`);

    // Fault controls, one at a time.
    const activeRedis = redis;
    let queue: Promise<unknown> = Promise.resolve();
    const serialised = <T>(work: () => Promise<T>): Promise<T> => {
      const result = queue.then(work, work);
      queue = result.catch(() => undefined);
      return result;
    };
    const instanceAt = (text: string | undefined): Instance => {
      const instance = instances[Number(text)];
      if (!instance) throw new Error(`no instance ${text ?? ""}`);
      return instance;
    };
    const actions: Record<string, (argument: string | undefined) => Promise<unknown>> = {
      "GET status": async () => ({
        balancerReady: balancer.ready(),
        balancerFailures: balancer.failures(),
        balancerFailureReasons: balancer.failureReasons(),
        pgCut: tcpProxies.some((tcpProxy) => tcpProxy.isCut()),
        redisPid: activeRedis.pid(),
        instances: instances.map((instance) => ({
          index: instance.index,
          port: instance.port,
          pid: alive(instance) ? (instance.child?.pid ?? null) : null,
        })),
      }),
      "POST pg/cut": async () => tcpProxies.forEach((tcpProxy) => tcpProxy.cut()),
      "POST pg/restore": async () => tcpProxies.forEach((tcpProxy) => tcpProxy.restore()),
      "POST redis/kill": () => activeRedis.kill(),
      "POST redis/start": () => activeRedis.start(),
      "POST instances/kill": (argument) => killInstance(instanceAt(argument)),
      "POST instances/terminate": (argument) => terminateInstance(instanceAt(argument)),
      "POST instances/start": (argument) => startInstance(instanceAt(argument)),
      "POST instances/pg-cut": async (argument) => instanceAt(argument).databaseProxy.cut(),
      "POST instances/pg-restore": async (argument) => instanceAt(argument).databaseProxy.restore(),
    };
    controlServer = http.createServer((request, response) => {
      // /status, /pg/cut, /redis/kill, … and /instances/<index>/<kill|start>
      const parts = (request.url ?? "").split("/").filter((part) => part !== "");
      const [first, index, verb] = parts;
      const name = `${request.method ?? ""} ${first === "instances" ? `instances/${verb ?? ""}` : parts.join("/")}`;
      const action = actions[name];
      if (!action) {
        response.writeHead(404).end(`no action ${name}`);
        return;
      }
      serialised(() => action(first === "instances" ? index : undefined)).then(
        (result) => response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(result ?? null)),
        (error: unknown) => response.writeHead(500).end(error instanceof Error ? error.message : String(error)),
      );
    });
    const controlPort = await freePort();
    await listen(controlServer, controlPort);

    const cluster: ScaleCluster = {
      instances: instances.map((instance) => ({ index: instance.index, port: instance.port, baseUrl: `http://127.0.0.1:${instance.port}` })),
      proxyUrl,
      controlUrl: `http://127.0.0.1:${controlPort}`,
      databaseUrl,
      redisUrl: redis.url,
      authSecret,
      admin,
      dbTimeoutMs: DB_TIMEOUT_MS,
      cliEnv: appEnv,
    };
    project.provide("scaleCluster", cluster);
    project.provide("scaleSkipped", null);
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }
  return teardown;
}
