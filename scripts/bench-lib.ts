import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { freePort, groupAlive, signalGroup } from "@/lib/cli/processes";
import { METRIC_PREFIX } from "@/lib/metrics/registry";
import { countersOf, sumSamples } from "./bench-metrics-lib";
import { runningBuilds } from "./cluster";

/**
 * The pieces of `npm run bench` that know nothing of Social Lookup: a typed face for autocannon
 * (it ships no types), process-group handling for the server, and the arithmetic of the checks.
 */

export type AutocannonOptions = {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Stop after this many requests instead of after `duration`. */
  amount?: number;
  headers?: Record<string, string>;
  /** Requests per second across all connections (autocannon's `overallRate`); unset: as fast as answered. */
  overallRate?: number;
  /** A sequence each connection sends in turn, round and round (autocannon's `requests`). */
  requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string }[];
};

type LatencyStats = { average: number; p50: number; p99: number; max: number };

export type AutocannonResult = {
  /** Per-second samples: `average` is the mean requests/s, `total` the answers, `sent` the requests written. */
  requests: { average: number; total: number; sent: number };
  latency: LatencyStats;
  /** Seconds. */
  duration: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number } | undefined>;
};

type AutocannonInstance = {
  stop(): void;
  on(event: "reqError", listener: (error: Error) => void): AutocannonInstance;
};

type Autocannon = (
  options: AutocannonOptions,
  callback: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as Autocannon;
export const autocannonVersion = (require("autocannon/package.json") as { version: string }).version;

export type LoadRun = {
  result: Promise<AutocannonResult>;
  /** Ends the run early (Ctrl-C); `result` still settles with what was measured. */
  stop(): void;
  /** The first connection error seen, for the report. */
  firstError(): string | null;
};

export const startLoad = (options: AutocannonOptions): LoadRun => {
  let firstError: string | null = null;
  let instance: AutocannonInstance | null = null;
  const result = new Promise<AutocannonResult>((resolve, reject) => {
    instance = autocannon(options, (error, outcome) => (error ? reject(error) : resolve(outcome)));
    instance.on("reqError", (error) => {
      firstError ??= error.message;
    });
  });
  return { result, stop: () => instance?.stop(), firstError: () => firstError };
};

/** Answers of one run by HTTP status, e.g. { 200: 4980, 429: 20 }. */
export const statusCounts = (result: AutocannonResult): Map<number, number> =>
  new Map(Object.entries(result.statusCodeStats).map(([status, stats]) => [Number(status), stats?.count ?? 0]));

/** What one key saw across several runs: answers by status, and requests written but never answered. */
export type KeyTally = { sent: number; answered: Map<number, number> };

export const emptyTally = (): KeyTally => ({ sent: 0, answered: new Map() });

export const addRun = (tally: KeyTally, result: AutocannonResult): KeyTally => addAnswers(tally, result.requests.sent, statusCounts(result));

export const addAnswers = (tally: KeyTally, sent: number, answered: Map<number, number>): KeyTally => {
  const merged = new Map(tally.answered);
  for (const [status, count] of answered) merged.set(status, (merged.get(status) ?? 0) + count);
  return { sent: tally.sent + sent, answered: merged };
};

export const answeredCount = (tally: KeyTally): number => [...tally.answered.values()].reduce((sum, count) => sum + count, 0);

/**
 * autocannon stops by closing its connections, so the last request of each one is still being
 * served when the run ends: the server answers (and charges) it to a closed socket.
 */
export const inFlightCount = (tally: KeyTally): number => Math.max(0, tally.sent - answeredCount(tally));

export type CreditCheck = {
  expectedRemaining: number;
  expectedUsageRows: number;
  /** 200s the client saw plus the requests in flight at the end, which the server answers 200 like the rest. */
  charged200s: number;
  creditsOk: boolean;
  usageOk: boolean;
};

export const checkCredits = (
  tally: KeyTally,
  figures: { creditsGranted: number; creditsRemaining: number; usageRows: number; costCredits: number },
): CreditCheck => {
  const charged200s = (tally.answered.get(200) ?? 0) + inFlightCount(tally);
  const expectedRemaining = figures.creditsGranted - figures.costCredits * charged200s;
  return {
    expectedRemaining,
    expectedUsageRows: tally.sent,
    charged200s,
    creditsOk: figures.creditsRemaining === expectedRemaining,
    usageOk: figures.usageRows === tally.sent,
  };
};

export const describeStatuses = (answered: Map<number, number>): string =>
  [...answered.entries()]
    .sort(([left], [right]) => left - right)
    .map(([status, count]) => `${status}×${count}`)
    .join(", ") || "none";

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const machineSummary = (): string => {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? "unknown CPU";
  const memoryGiB = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `machine: ${os.availableParallelism()} cores (${model}), ${memoryGiB} GiB RAM, ${os.platform()} ${os.arch()}, node ${process.version}`;
};

/** Synchronous last resort for process exit paths: nothing may outlive the bench. */
export const killGroupNow = (groupId: number): void => signalGroup(groupId, "SIGKILL");

/**
 * SIGTERM to the whole group (tsx, scripts/start.ts, next start), then SIGKILL for whatever has
 * not gone after `graceMs`. Resolves once the leader has exited and the group is gone (or after
 * a short extra wait: an unreaped zombie would otherwise hold us forever).
 */
export const stopGroup = async (child: ChildProcess, graceMs: number): Promise<void> => {
  const groupId = child.pid;
  if (groupId === undefined) return;
  const leaderExited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  signalGroup(groupId, "SIGTERM");
  const waitGone = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    await Promise.race([leaderExited, sleep(timeoutMs)]);
    while (groupAlive(groupId) && Date.now() < deadline) await sleep(100);
    return !groupAlive(groupId);
  };
  if (await waitGone(graceMs)) return;
  signalGroup(groupId, "SIGKILL");
  await waitGone(2000);
};

/**
 * What a bench must release however it ends: `onExit` synchronously as the process exits (kill the
 * server's group, remove the data dir), `cleanup` once on the first SIGINT, SIGTERM or SIGHUP before
 * exiting 130. Ctrl-C reaches the process twice (from the terminal and relayed by tsx): the rest are ignored.
 */
export const releaseOnExit = ({ onExit, cleanup }: { onExit: () => void; cleanup: () => Promise<void> }): void => {
  process.on("exit", onExit);
  let interrupted = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      console.error(`\n${signal}: stopping the server and cleaning up…`);
      void cleanup().finally(() => process.exit(130));
    });
  }
};

// The cluster script owns the "is a build running" probe; the benches share it.
export { runningBuilds };

/** Two builds into one .next directory break each other: let another engineer's build finish first. */
export const waitForOtherBuilds = async (): Promise<void> => {
  let announced = false;
  while (runningBuilds().length > 0) {
    if (!announced) console.log("another `next build` is running; waiting for it to finish before starting…");
    announced = true;
    await sleep(2000);
  }
};

/** The options of a load run: --duration S and --connections N, as the benches describe them. */
export const LOAD_OPTIONS = {
  duration: { type: "string", default: "10" },
  connections: { type: "string", default: "50" },
} as const;

/** --duration and --connections read and checked; the message of the error says which is wrong. */
export const readLoadOptions = (values: { duration: string; connections: string }): { durationSeconds: number; connections: number } => {
  const durationSeconds = Number(values.duration);
  const connections = Number(values.connections);
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0 || durationSeconds > 3600) {
    throw new Error("--duration must be a number of seconds between 0 and 3600");
  }
  if (!Number.isInteger(connections) || connections < 1 || connections > 10_000) {
    throw new Error("--connections must be a whole number between 1 and 10000");
  }
  return { durationSeconds, connections };
};
// scripts/bench.ts takes the free-port probe from here.
export { freePort };

/** The last lines of a log file, for error reports. */
export const tail = (file: string, lines: number): string => {
  try {
    return fs.readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
};

/** Spawns a long-running child in its own process group with its output going to a log file. */
export const spawnLogged = (
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): ChildProcess => {
  const log = fs.openSync(options.logFile, "a");
  try {
    return spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", log, log] });
  } finally {
    fs.closeSync(log);
  }
};

export const formatRow = (cells: readonly string[], widths: readonly number[]): string =>
  cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join("  ");

const clockTicksPerSecond = (): number => {
  const result = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const ticks = Number.parseInt(result.stdout ?? "", 10);
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
};

/**
 * CPU time (user + system, ms) spent so far by every live process of a process group, read from
 * /proc (Linux): the server's own work per request, apart from the load generator in this process.
 * null where /proc is not there.
 */
export const processGroupCpuMs = (groupId: number): number | null => {
  if (!fs.existsSync("/proc/self/stat")) return null;
  const ticks = clockTicksPerSecond();
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces) start at state: pgrp is 3rd, utime 12th, stime 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== groupId) continue;
    total += Number(fields[11]) + Number(fields[12]);
  }
  return (total * 1000) / ticks;
};
/** A production server's environment for a bench: its own port, data folder and administrator. */
export const benchServerEnv = (options: {
  port: number;
  dataDir: string;
  admin: { email: string; password: string };
  extra: Record<string, string>;
}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  PORT: String(options.port),
  DATA_DIR: options.dataDir,
  PUBLIC_URL: `http://127.0.0.1:${options.port}`,
  AUTH_SECRET: crypto.randomBytes(36).toString("base64url"),
  ADMIN_EMAIL: options.admin.email,
  ADMIN_PASSWORD: options.admin.password,
  ...options.extra,
});

/** The value at percentile `p` (0–100) of ascending `sorted` (nearest rank); NaN when empty. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** The machine's load average now, for a reader to judge figures measured beside other work. */
export const loadAverage = (): string => {
  const [one, five, fifteen] = os.loadavg().map((load) => load.toFixed(2));
  return `load average ${one} ${five} ${fifteen} (1/5/15 min, ${os.availableParallelism()} cores)`;
};

/** The isolation target (docs/performance.md "Isolation"): others' p99 ≤ 100 ms and max ≤ 500 ms. */
export const ISOLATION_TARGET = { p99Ms: 100, maxMs: 500 } as const;

export const isolationTarget = (p99Ms: number, maxMs: number): { met: boolean; line: string } => {
  const met = p99Ms <= ISOLATION_TARGET.p99Ms && maxMs <= ISOLATION_TARGET.maxMs;
  return { met, line: `target p99≤${ISOLATION_TARGET.p99Ms} max≤${ISOLATION_TARGET.maxMs}: ${met ? "met" : "not met"}` };
};

/** The embedded database's thread as a server's /metrics counts it (totals since the start). */
export type ThreadCounters = {
  statements: number;
  statementSeconds: number;
  statementsWithin100Ms: number;
  pages: number;
  pageSeconds: number;
  pagesWaited: number;
  pageWaitSeconds: number;
  eventLoopP99Seconds: number;
  eventLoopMaxSeconds: number;
};

/** The thread's counters in a /metrics text (Prometheus exposition); a series that is not there counts 0. */
export const threadCountersOf = (text: string): ThreadCounters => {
  /** The sum of `name`'s samples whose labels include all of `where`. */
  const total = (name: string, where: Record<string, string> = {}): number =>
    [...sumSamples(countersOf(text, name), where, "").values()].reduce((sum, value) => sum + value, 0);
  const statement = (kind: string, suffix: string, where: Record<string, string> = {}) =>
    total(`${METRIC_PREFIX}db_statement_duration_seconds_${suffix}`, { database: "pglite", kind, ...where });
  return {
    statements: statement("query", "count"),
    statementSeconds: statement("query", "sum"),
    statementsWithin100Ms: statement("query", "bucket", { le: "0.1" }),
    pages: statement("long_read", "count"),
    pageSeconds: statement("long_read", "sum"),
    pagesWaited: total(`${METRIC_PREFIX}db_long_read_waits_total`),
    pageWaitSeconds: total(`${METRIC_PREFIX}db_long_read_wait_seconds_total`),
    // Node's own gauges (unprefixed), over the time since the previous scrape: the serving thread's longest stretches.
    eventLoopP99Seconds: total("nodejs_eventloop_lag_p99_seconds"),
    eventLoopMaxSeconds: total("nodejs_eventloop_lag_max_seconds"),
  };
};

/** The thread's counters from a server's /metrics, or null when it cannot be read. */
export const databaseThreadCounters = async (metricsUrl: string): Promise<ThreadCounters | null> => {
  const text = await fetch(metricsUrl).then((response) => (response.ok ? response.text() : null), () => null);
  return text === null ? null : threadCountersOf(text);
};

/**
 * What the thread did between two scrapes: short statements (`kind="query"`, queueing included)
 * and pages of long reads (`kind="long_read"`), with the time pages spent waiting for others.
 */
export const threadActivity = (after: ThreadCounters, before: ThreadCounters) => {
  const statements = after.statements - before.statements;
  const pages = after.pages - before.pages;
  return {
    statements,
    statementMeanMs: statements === 0 ? 0 : ((after.statementSeconds - before.statementSeconds) * 1000) / statements,
    statementsOver100Ms: statements - (after.statementsWithin100Ms - before.statementsWithin100Ms),
    pages,
    pageMeanMs: pages === 0 ? 0 : ((after.pageSeconds - before.pageSeconds) * 1000) / pages,
    pagesWaited: after.pagesWaited - before.pagesWaited,
    pageWaitMs: (after.pageWaitSeconds - before.pageWaitSeconds) * 1000,
    eventLoopP99Ms: after.eventLoopP99Seconds * 1000,
    eventLoopMaxMs: after.eventLoopMaxSeconds * 1000,
  };
};
export type ThreadActivity = ReturnType<typeof threadActivity>;
