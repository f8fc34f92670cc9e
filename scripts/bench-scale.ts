import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { parseCliOptions } from "@/lib/cli/options";
import { openDb } from "@/lib/database";
import { followers } from "@/lib/operations/followers";
import { seedIfEmpty } from "@/lib/demo/seed";
import { createKey } from "@/lib/keys/repository";
import { startRedisServer, waitForRedis, type RedisProcess } from "@/tests/scale/faults";
import { busiestSecond, probeAtFixedRate } from "./rate-accuracy";
import { freePort, inheritedEnv, randomSecret, runLogged, signalGroup } from "@/lib/cli/processes";
import {
  autocannonVersion,
  machineSummary,
  startLoad,
  statusCounts,
  describeStatuses,
  spawnLogged,
  type AutocannonResult,
} from "./bench-lib";
import {
  snapshotBuild,
  spawnInstance,
  stopInstance,
  waitForForeignBuilds,
  waitHealthy,
} from "./cluster";

/**
 * `npm run bench:scale`: the multi-instance figures of docs/scale.md, printed, not asserted.
 *
 *  1. throughput of the followers lookup on 1 instance and on 3 (through the round-robin proxy of
 *     start:cluster, and also with the load spread straight over the three), all on PostgreSQL;
 *  2. the latency the key / limit / credit pipeline adds at half saturation: p99 of the followers
 *     lookup minus p99 of the trivial /api/ping, both at a fixed rate of half the measured maximum;
 *  3. synchronous database writes per request: settle_requests() calls (group commit) and
 *     requests that needed a second write (reserve + commit), from PostgreSQL's own counters.
 *
 * Everything runs on a fresh schema of 127.0.0.1:5432/test and a redis-server of its own; the
 * machine's shared services are only used, never reconfigured.
 */
const USAGE = `usage: npm run bench:scale -- [--duration S] [--connections N]
  --duration S      seconds per throughput run (default 10; each is warmed up for 3 s first)
  --connections N   concurrent autocannon connections (default 50)`;

const root = process.cwd();
const tsxCli = path.join(root, "node_modules", "tsx", "dist", "cli.mjs");
const POSTGRES = "postgresql://postgres@127.0.0.1:5432/test";
const FOLLOWERS_PATH = `${followers.path}?userid=2000000002`;
const PING_PATH = "/api/ping";
const WARMUP_SECONDS = 3;
const FIXED_RATE_SECONDS = 10;
/** The limit accuracy probe: a key with this limit, driven at twice it over the three instances. */
const ACCURACY_QPS = 50;
const ACCURACY_SECONDS = 5;

class BenchError extends Error {}

const say = (message: string) => console.log(message);

const options = () => {
  const values = parseCliOptions(
    USAGE,
    { duration: { type: "string", default: "10" }, connections: { type: "string", default: "50" } },
    (message) => new BenchError(message),
  );
  const durationSeconds = Number(values.duration);
  const connections = Number(values.connections);
  if (!Number.isInteger(durationSeconds) || durationSeconds < 1 || durationSeconds > 600) throw new BenchError(`--duration must be 1-600\n${USAGE}`);
  if (!Number.isInteger(connections) || connections < 1 || connections > 2000) throw new BenchError(`--connections must be 1-2000\n${USAGE}`);
  return { durationSeconds, connections };
};

const runTsx = (args: readonly string[], logFile: string): Promise<number> =>
  runLogged(process.execPath, [tsxCli, ...args], { cwd: root, env: { ...inheritedEnv(), NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" }, logFile });

// ---------------------------------------------------------------------------------------------
// Measuring

type Throughput = {
  label: string;
  requestsPerS: number;
  p50Ms: number;
  p99Ms: number;
  statuses: string;
  errors: number;
  /** Answers of the warm-up and the run, and requests written in both (the server settles every one). */
  answered: number;
  sent: number;
};

const throughput = async (label: string, urls: readonly string[], connections: number, seconds: number, token: string | null): Promise<Throughput> => {
  const headers = token === null ? undefined : { Authorization: `Bearer ${token}` };
  // With several URLs, one autocannon per URL, the connections shared out: the load spread straight over the instances.
  const share = Math.max(1, Math.floor(connections / urls.length));
  const warm = urls.map((url) => startLoad({ url, connections: share, duration: WARMUP_SECONDS, headers }));
  const warmResults = await Promise.all(warm.map((run) => run.result));
  const runs = urls.map((url) => startLoad({ url, connections: share, duration: seconds, headers }));
  const results: AutocannonResult[] = await Promise.all(runs.map((run) => run.result));
  const answered = new Map<number, number>();
  for (const result of results) for (const [status, count] of statusCounts(result)) answered.set(status, (answered.get(status) ?? 0) + count);
  const total = [...answered.values()].reduce((sum, count) => sum + count, 0);
  const weighted = (pick: (result: AutocannonResult) => number) =>
    results.reduce((sum, result) => sum + pick(result) * result.requests.total, 0) / Math.max(1, results.reduce((sum, result) => sum + result.requests.total, 0));
  return {
    label,
    requestsPerS: results.reduce((sum, result) => sum + result.requests.total / result.duration, 0),
    p50Ms: weighted((result) => result.latency.p50),
    p99Ms: Math.max(...results.map((result) => result.latency.p99)),
    statuses: describeStatuses(answered),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    answered: total + warmResults.reduce((sum, result) => sum + result.requests.total, 0),
    sent: [...results, ...warmResults].reduce((sum, result) => sum + result.requests.sent, 0),
  };
};

/**
 * Requests at a fixed rate on keep-alive connections, latencies in microseconds (autocannon's
 * histogram has whole milliseconds, too coarse for a sub-millisecond difference).
 */
const fixedRate = async (url: string, ratePerS: number, seconds: number, token: string | null) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(url);
  const total = Math.round(ratePerS * seconds);
  const latenciesMs: number[] = [];
  const statuses = new Map<number, number>();
  const startedAt = performance.now();
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const sentAt = performance.now();
      const request = http.get(
        { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, agent, headers: token === null ? {} : { Authorization: `Bearer ${token}` } },
        (response) => {
          response.resume();
          response.on("end", () => {
            latenciesMs.push(performance.now() - sentAt);
            statuses.set(response.statusCode ?? 0, (statuses.get(response.statusCode ?? 0) ?? 0) + 1);
            resolve();
          });
        },
      );
      request.on("error", () => {
        statuses.set(0, (statuses.get(0) ?? 0) + 1);
        resolve();
      });
    });
  const pending: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    const due = startedAt + (index * 1000) / ratePerS;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  agent.destroy();
  const sorted = latenciesMs.sort((left, right) => left - right);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
  const achieved = total / ((performance.now() - startedAt) / 1000);
  return { p50Ms: at(0.5), p99Ms: at(0.99), achievedPerS: achieved, statuses: describeStatuses(statuses) };
};

type WriteCounters = { settleCalls: number; sweepCalls: number; usageInserts: number; usageUpdates: number; xactCommit: number };

/** PostgreSQL's own counters for the bench's schema (function calls need track_functions, set per session in the URL). */
const readCounters = async (client: pg.Client, schema: string): Promise<WriteCounters> => {
  const functions = await client.query<{ funcname: string; calls: string }>(
    "SELECT funcname, calls::text FROM pg_stat_user_functions WHERE schemaname = $1",
    [schema],
  );
  const calls = (name: string) => Number(functions.rows.find((row) => row.funcname === name)?.calls ?? 0);
  const usage = await client.query<{ ins: string; upd: string }>(
    "SELECT n_tup_ins::text AS ins, n_tup_upd::text AS upd FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'usage_events'",
    [schema],
  );
  const database = await client.query<{ xact_commit: string }>("SELECT xact_commit::text FROM pg_stat_database WHERE datname = 'test'");
  return {
    settleCalls: calls("settle_requests"),
    sweepCalls: calls("sweep_stale_reservations"),
    usageInserts: Number(usage.rows[0]?.ins ?? 0),
    usageUpdates: Number(usage.rows[0]?.upd ?? 0),
    xactCommit: Number(database.rows[0]?.xact_commit ?? 0),
  };
};

// ---------------------------------------------------------------------------------------------
// Where the CPU goes

const CLOCK_TICKS_PER_S = 100;

/** CPU seconds (user + system) a process has used so far, from /proc; 0 when it is gone. */
const cpuSecondsOf = (pid: number): number => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), counted from field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return 0;
  }
};

/** Every process of a process group (an instance, or tsx and the node process it starts). */
const groupPids = (groupId: number): number[] =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === groupId;
      } catch {
        return false;
      }
    });

/** Busy CPU seconds of the whole machine so far (every core, every process). */
const machineBusySeconds = (): number => {
  const [cpu = ""] = fs.readFileSync("/proc/stat", "utf8").split("\n");
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu.trim().split(/\s+/).map(Number);
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_S;
};

/** Every PostgreSQL server process of the machine (the bench's backends among them). */
const postgresPids = (): number[] =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres";
      } catch {
        return false;
      }
    });

type CpuGroups = Record<string, () => number[]>;

/** CPU seconds per group over `work`, and the wall time it took. */
const measureCpu = async <T>(groups: CpuGroups, work: () => Promise<T>): Promise<{ result: T; seconds: number; cpu: Record<string, number> }> => {
  const sample = () => Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, new Map(pids().map((pid) => [pid, cpuSecondsOf(pid)]))]));
  const before = sample();
  const machineBefore = machineBusySeconds();
  const startedAt = performance.now();
  const result = await work();
  const seconds = (performance.now() - startedAt) / 1000;
  const after = sample();
  const cpu: Record<string, number> = {};
  for (const [name, pids] of Object.entries(after)) {
    let used = 0;
    for (const [pid, total] of pids) used += total - (before[name]?.get(pid) ?? 0);
    cpu[name] = used;
  }
  const ours = Object.values(cpu).reduce((sum, used) => sum + used, 0);
  cpu["everything else on the machine"] = Math.max(0, machineBusySeconds() - machineBefore - ours);
  return { result, seconds, cpu };
};

const describeCpu = (cpu: Record<string, number>, seconds: number): string =>
  Object.entries(cpu)
    .map(([name, used]) => `${name} ${(used / seconds).toFixed(2)}`)
    .join(", ");

const startProxyProcess = async (port: number, upstreams: readonly number[], logFile: string): Promise<ChildProcess> => {
  const child = spawnLogged(
    process.execPath,
    [tsxCli, "scripts/cluster.ts", "--upstreams", upstreams.map((upstream) => `127.0.0.1:${upstream}`).join(","), "--port", String(port)],
    { cwd: root, env: { ...inheritedEnv(), NODE_ENV: "production" }, logFile },
  );
  if (!(await waitHealthy(`http://127.0.0.1:${port}`, 30_000, child))) throw new BenchError(`the proxy did not start; see ${logFile}`);
  return child;
};

// ---------------------------------------------------------------------------------------------
// The run

const main = async () => {
  const { durationSeconds, connections } = options();
  const runId = randomSecret(8).toLowerCase().replace(/[^a-z0-9]/g, "x");
  const schema = `sl_bench_scale_${runId}`;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-bench-scale-"));
  const appDir = path.join(runDir, "app");
  // Kept after the run (the run directory is not): the build's and the instances' output.
  const logFile = path.join(os.tmpdir(), `sl-bench-scale-${runId}.log`);
  const admin = new pg.Client({ connectionString: POSTGRES, connectionTimeoutMillis: 3000 });
  const children: ChildProcess[] = [];
  let redis: RedisProcess | null = null;
  let schemaCreated = false;
  const killAll = () => children.forEach((child) => child.pid !== undefined && signalGroup(child.pid, "SIGKILL"));
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

  try {
    try {
      await admin.connect();
    } catch (error) {
      throw new BenchError(`PostgreSQL at 127.0.0.1:5432 (database test) is unreachable: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!(await waitForRedis(6379, 1500))) say("note: Redis at 127.0.0.1:6379 is unreachable; the bench uses a redis-server of its own anyway");
    say(`${machineSummary()}; load average ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
    say(`load: autocannon ${autocannonVersion} in this process, ${connections} connections, ${WARMUP_SECONDS} s warm-up + ${durationSeconds} s per run`);

    await admin.query(`CREATE SCHEMA ${schema}`);
    schemaCreated = true;
    const options = encodeURIComponent(`-c search_path=${schema} -c track_functions=pl`);
    const databaseUrl = `${POSTGRES}?options=${options}`;

    say("building (when the sources changed) and copying the build…");
    await waitForForeignBuilds(say);
    if ((await runTsx(["scripts/build.ts"], logFile)) !== 0) throw new BenchError(`the build failed; see ${logFile}`);
    await snapshotBuild(root, appDir, say);

    const authSecret = randomSecret(48);
    const db = await openDb({ dataDir: path.join(runDir, "data"), databaseUrl, timeoutMs: 10_000 });
    let token: string;
    try {
      await seedIfEmpty(db, "http://localhost");
      ({ token } = await createKey(db, authSecret, { name: "bench-scale", ownerId: null, credits: 1_000_000_000, qpsLimit: 100_000, expiresAt: null }));
    } finally {
      await db.close();
    }

    redis = await startRedisServer(await freePort());
    const ports = [await freePort(), await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...inheritedEnv(),
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATA_DIR: path.join(runDir, "data"),
      AUTH_SECRET: authSecret,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      EVENTSITE_HOSTS: "events.demo.test",
      DATA_SOURCE: "store",
      ADMIN_EMAIL: "bench-scale@example.test",
      ADMIN_PASSWORD: randomSecret(24),
    };
    const start = async (port: number) => {
      const fd = fs.openSync(logFile, "a");
      try {
        const child = spawnInstance({ port, env: { ...env, PUBLIC_URL: `http://127.0.0.1:${port}` }, appDir, output: { fd } });
        children.push(child);
        if (!(await waitHealthy(`http://127.0.0.1:${port}`, 120_000, child))) throw new BenchError(`instance on ${port} was not healthy; see ${logFile}`);
      } finally {
        fs.closeSync(fd);
      }
    };
    const url = (port: number, route: string) => `http://127.0.0.1:${port}${route}`;
    const [first = 0, second = 0, third = 0] = ports;

    // 1 instance
    await start(first);
    say("\n1 instance (direct)…");
    const oneCpuGroups: CpuGroups = {
      instances: () => children.flatMap((child) => (child.pid === undefined ? [] : groupPids(child.pid))),
      postgres: postgresPids,
      redis: () => {
        const pid = redis?.pid();
        return pid ? [pid] : [];
      },
      "load generator": () => [process.pid],
    };
    const single = await measureCpu(oneCpuGroups, () => throughput("1 instance, direct", [url(first, FOLLOWERS_PATH)], connections, durationSeconds, token));
    const one = single.result;
    const onePing = await throughput("1 instance, /api/ping", [url(first, PING_PATH)], connections, durationSeconds, null);

    // Pipeline latency at half saturation, on the single instance.
    const halfRate = Math.max(10, Math.round(one.requestsPerS / 2));
    say(`fixed rate ${halfRate}/s (half of the followers maximum) for ${FIXED_RATE_SECONDS} s each: /api/ping, then followers…`);
    const pingAtHalf = await fixedRate(url(first, PING_PATH), halfRate, FIXED_RATE_SECONDS, null);
    const followersAtHalf = await fixedRate(url(first, FOLLOWERS_PATH), halfRate, FIXED_RATE_SECONDS, token);

    // 3 instances
    await start(second);
    await start(third);
    const proxyPort = await freePort();
    // The proxy in a process of its own, as start:cluster runs it: not on the load generator's thread.
    const proxyProcess = await startProxyProcess(proxyPort, ports, logFile);
    children.push(proxyProcess);
    const cpuGroups: CpuGroups = {
      instances: () => children.filter((child) => child !== proxyProcess).flatMap((child) => (child.pid === undefined ? [] : groupPids(child.pid))),
      postgres: postgresPids,
      redis: () => {
        const pid = redis?.pid();
        return pid ? [pid] : [];
      },
      proxy: () => (proxyProcess.pid === undefined ? [] : groupPids(proxyProcess.pid)),
      "load generator": () => [process.pid],
    };
    // Before the measured runs, so that its requests stay out of their write counts.
    say(`limit accuracy: a key with ${ACCURACY_QPS}/s driven at ${2 * ACCURACY_QPS}/s over the 3 instances for ${ACCURACY_SECONDS} s…`);
    const accuracyDb = await openDb({ dataDir: path.join(runDir, "data"), databaseUrl, timeoutMs: 10_000 });
    const accuracyKey = await createKey(accuracyDb, authSecret, {
      name: "bench-accuracy",
      ownerId: null,
      credits: 1_000_000,
      qpsLimit: ACCURACY_QPS,
      expiresAt: null,
    }).finally(() => accuracyDb.close());
    const probed = await probeAtFixedRate({
      urls: ports.map((port) => url(port, FOLLOWERS_PATH)),
      token: accuracyKey.token,
      ratePerS: 2 * ACCURACY_QPS,
      seconds: ACCURACY_SECONDS,
    });
    const admittedAt = (
      await admin.query<{ at: number }>(
        `SELECT (extract(epoch FROM created_at) * 1000)::float8 AS at FROM ${schema}.usage_events WHERE key_id = $1 AND status = 200`,
        [accuracyKey.key.id],
      )
    ).rows.map((row) => Number(row.at));
    const accuracy = {
      admitted: admittedAt.length,
      busiest: busiestSecond(admittedAt),
      refused: probed.filter((answer) => answer.status === 429).length,
    };
    // The two new instances start cold (JIT, Next's lazily loaded routes): warmed like the first one was.
    say("warming the new instances…");
    await throughput("warm-up", [url(second, FOLLOWERS_PATH), url(third, FOLLOWERS_PATH)], connections, durationSeconds, token);
    // PostgreSQL backends report their statistics at most once a second while busy and 10 s after
    // going idle: wait for the warm-up's to arrive before taking the "before" figures.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const before = await readCounters(admin, schema);
    say("3 instances, load spread straight over them…");
    const direct = await measureCpu(cpuGroups, () =>
      throughput("3 instances, direct", ports.map((port) => url(port, FOLLOWERS_PATH)), connections, durationSeconds, token),
    );
    const threeDirect = direct.result;
    say("3 instances through the round-robin proxy…");
    const viaProxy = await measureCpu(cpuGroups, () => throughput("3 instances, via proxy", [url(proxyPort, FOLLOWERS_PATH)], connections, durationSeconds, token));
    const three = viaProxy.result;


    const rssMiB = children
      .filter((child) => child !== proxyProcess)
      .flatMap((child) => (child.pid === undefined ? [] : groupPids(child.pid)))
      .map((pid) => {
        const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
        return Number(match?.[1] ?? 0) / 1024;
      });

    // Stop the instances first: a backend flushes its statistics when its connection ends.
    await Promise.all(children.map((child) => (child.pid === undefined ? undefined : stopInstance(child.pid))));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = await readCounters(admin, schema);

    // Report
    const rows = [one, threeDirect, three, onePing];
    say(`\n== Throughput (GET ${followers.path}, PostgreSQL + Redis)`);
    say(`${"run".padEnd(26)} ${"req/s".padStart(8)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)}  answers`);
    for (const row of rows) {
      say(`${row.label.padEnd(26)} ${row.requestsPerS.toFixed(0).padStart(8)} ${row.p50Ms.toFixed(1).padStart(7)} ${row.p99Ms.toFixed(1).padStart(7)}  ${row.statuses}${row.errors ? `, ${row.errors} errors` : ""}`);
    }
    const instanceCpuPerRequest = (measured: { cpu: Record<string, number> }, run: Throughput) =>
      `${(((measured.cpu.instances ?? 0) * 1000) / Math.max(1, run.answered)).toFixed(2)} ms of instance CPU per request`;
    say(`cores busy (CPU seconds per second, warm-up included):`);
    say(`  1 instance:  ${describeCpu(single.cpu, single.seconds)}; ${instanceCpuPerRequest(single, one)}`);
    say(`  3 direct:    ${describeCpu(direct.cpu, direct.seconds)}; ${instanceCpuPerRequest(direct, threeDirect)}`);
    say(`  3 via proxy: ${describeCpu(viaProxy.cpu, viaProxy.seconds)}; ${instanceCpuPerRequest(viaProxy, three)}`);
    say(`  (postgres: every PostgreSQL process of the machine; load average now ${os.loadavg().map((load) => load.toFixed(1)).join(" ")})`);
    say(`resident memory per instance after the runs: ${rssMiB.map((mib) => `${mib.toFixed(0)} MiB`).join(", ")}`);
    say(`scaling 1 → 3 instances: ×${(three.requestsPerS / one.requestsPerS).toFixed(2)} through the proxy, ×${(threeDirect.requestsPerS / one.requestsPerS).toFixed(2)} spread directly (target ×2.4 on enough cores)`);

    say(`\n== Per-key limit accuracy (sliding log in Redis, 3 instances, ${2 * ACCURACY_QPS}/s against ${ACCURACY_QPS}/s for ${ACCURACY_SECONDS} s)`);
    say(
      `admitted ${accuracy.admitted}, refused ${accuracy.refused}; busiest sliding second: ${accuracy.busiest} = ` +
        `${(accuracy.busiest / ACCURACY_QPS).toFixed(2)}× the limit (target ≤ 1.0×; fixed windows allowed up to 2.0×)`,
    );

    say(`\n== Pipeline latency at half saturation (${halfRate}/s, 1 instance, ${FIXED_RATE_SECONDS} s each)`);
    say(`/api/ping   p50 ${pingAtHalf.p50Ms.toFixed(2)} ms  p99 ${pingAtHalf.p99Ms.toFixed(2)} ms  (${pingAtHalf.achievedPerS.toFixed(0)}/s achieved; ${pingAtHalf.statuses})`);
    say(`followers   p50 ${followersAtHalf.p50Ms.toFixed(2)} ms  p99 ${followersAtHalf.p99Ms.toFixed(2)} ms  (${followersAtHalf.achievedPerS.toFixed(0)}/s achieved; ${followersAtHalf.statuses})`);
    say(`added by key + limit + credits + usage: p50 +${(followersAtHalf.p50Ms - pingAtHalf.p50Ms).toFixed(2)} ms, p99 +${(followersAtHalf.p99Ms - pingAtHalf.p99Ms).toFixed(2)} ms (target p99 ≤ 1 ms)`);
    say(
      "  A lookup waits for one Redis call and for its settle batch: the batch in flight, then its own durable commit " +
        "(synchronous_commit on: an fdatasync per batch). At the tail it also waits for a core held by PostgreSQL, Redis or the load generator.",
    );

    const requests = after.usageInserts - before.usageInserts;
    const settles = after.settleCalls - before.settleCalls;
    const secondWrites = after.usageUpdates - before.usageUpdates;
    const commits = after.xactCommit - before.xactCommit;
    say("\n== Synchronous database writes (the two measured 3-instance runs, warm-ups included)");
    say(`requests settled (usage rows written): ${requests}`);
    say(`settle_requests() calls, each one transaction: ${settles} → ${(settles / Math.max(1, requests)).toFixed(3)} per request, ${(requests / Math.max(1, settles)).toFixed(1)} requests per batch (group commit)`);
    say(`requests that needed a second write (reserve + commit/refund updates their usage row): ${secondWrites} = ${((secondWrites / Math.max(1, requests)) * 100).toFixed(2)} % (target: none needs more than one)`);
    say(`pg_stat_database xact_commit of database "test": +${commits} = ${(commits / Math.max(1, requests)).toFixed(3)} per request — every transaction of every session, reads and other users of "test" included (an upper bound)`);
    say(
      `requests autocannon wrote in those runs (warm-ups included): ${three.sent + threeDirect.sent}, answered ${three.answered + threeDirect.answered} ` +
        "(the server settles the few still in flight when a run stops too)",
    );

    const busy = (cpu: Record<string, number>, seconds: number, name: string) => (cpu[name] ?? 0) / seconds;
    const others = busy(direct.cpu, direct.seconds, "everything else on the machine");
    say(
      "\n== What a 2-core machine limits\n" +
        `${os.availableParallelism()} cores carry the instances, PostgreSQL, Redis, the proxy and the load generator at once. ` +
        `One instance alone used ${busy(single.cpu, single.seconds, "instances").toFixed(2)} cores at its maximum; three used ` +
        `${busy(direct.cpu, direct.seconds, "instances").toFixed(2)} together for ×${(threeDirect.requestsPerS / one.requestsPerS).toFixed(2)} the throughput — the cores were already ` +
        `spoken for (PostgreSQL ${busy(direct.cpu, direct.seconds, "postgres").toFixed(2)}, the load generator ${busy(direct.cpu, direct.seconds, "load generator").toFixed(2)}` +
        `${others >= 0.05 ? `, other work on this machine ${others.toFixed(2)}` : ""}), so a second and third instance add processes ` +
        "competing for them, not capacity; through the proxy every request also crosses one more process. Throughput per instance " +
        "is bounded by Node's CPU per request (Next's routing, JSON, the pipeline), not by the shared state: one settle_requests() " +
        "transaction serves several requests and Redis answers in well under a millisecond. The ×2.4 target needs a core per " +
        "instance plus PostgreSQL on cores (or a host) of its own.",
    );
    say(`\n(build and instance output: ${logFile})`);
  } finally {
    await Promise.all(children.map((child) => (child.pid === undefined ? undefined : stopInstance(child.pid, 5000))));
    process.off("exit", killAll);
    await redis?.stop().catch(() => undefined);
    if (schemaCreated) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    fs.rmSync(runDir, { recursive: true, force: true });
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
