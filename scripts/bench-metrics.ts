import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { parseCliOptions } from "@/lib/cli/options";
import { openDb } from "@/lib/database";
import { createKey } from "@/lib/keys/repository";
import { followersOperation } from "@/lib/operations/followers/descriptor";
import { createUser } from "@/lib/users/repository";
import {
  autocannonVersion,
  benchServerEnv,
  freePort,
  killGroupNow,
  LOAD_OPTIONS,
  machineSummary,
  readLoadOptions,
  processGroupCpuMs,
  sleep,
  spawnLogged,
  startLoad,
  statusCounts,
  stopGroup,
  tail,
  waitForOtherBuilds,
  type AutocannonResult,
} from "./bench-lib";
import { countersOf, sumSamples } from "./bench-metrics-lib";

/**
 * The operators' case of `npm run bench` (docs/performance.md "Metrics and JSON logs on against off"): what counting
 * and JSON request logs cost. Two production servers of the same build, each on a fresh embedded
 * database, side by side: "on" (METRICS=on, METRICS_TOKEN set and GET /metrics scraped every
 * second while it is loaded, LOG_FORMAT=json, LOG_LEVEL=info) and "off" (METRICS=off,
 * LOG_LEVEL=warn). Rounds of the followers load and of Next's /api/ping on each, in turns (on,
 * off, then off, on, and so on: each side goes first as often as the other), so both see the
 * same machine; the servers' CPU time per followers answer is measured too (less noisy). Prints each side's `ratio` (followers ÷ ping, as the main bench) and p99,
 * `metrics_ratio` (on ÷ off; the target is ≥ 0.95) and `p99_change` (the target: within 10 %).
 * Then the exactness check: the on server's `requests_total` for the followers operation, read
 * from /metrics once the load is over, against the usage ledger's count of followers requests
 * of the same server (its whole life: a fresh database) — `metrics_ledger_match=yes` only when
 * they are equal.
 */
const USAGE = `usage: npx tsx scripts/bench-metrics.ts [--duration S] [--connections N] [--keep]
  --duration S      seconds of each load of a round (default 10; 2 s of warm-up first)
  --connections N   concurrent connections (default 50)
  --keep            keep the data dirs and server logs`;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const ROUNDS = 4;
const WARMUP_SECONDS = 2;
const SCRAPE_EVERY_MS = 1000;
const CREDITS = 1_000_000_000;
const FOLLOWERS_PATH = `${followersOperation.path}?userid=2000000002`;
const PING_PATH = "/api/ping";
const REQUESTS_TOTAL = "social_lookup_requests_total";

type Side = "on" | "off";

type BenchServer = {
  side: Side;
  baseUrl: string;
  dataDir: string;
  runDir: string;
  logFile: string;
  token: string;
  /** The scraper's bearer token; null on the "off" side (its /metrics answers 404). */
  metricsToken: string | null;
  process: ChildProcess | null;
};

const sideEnv = (side: Side): { env: Record<string, string>; metricsToken: string | null } => {
  if (side === "off") return { env: { METRICS: "off", LOG_LEVEL: "warn" }, metricsToken: null };
  const metricsToken = crypto.randomBytes(24).toString("base64url");
  return { env: { METRICS: "on", METRICS_TOKEN: metricsToken, LOG_FORMAT: "json", LOG_LEVEL: "info" }, metricsToken };
};

/** A key of its own, written before the server starts (the embedded database admits one process). */
const prepareKey = async (dataDir: string, authSecret: string, side: Side): Promise<string> => {
  const db = await openDb({ dataDir, timeoutMs: 10_000 });
  try {
    const owner = await createUser(db, { email: `bench-metrics-${side}@example.test`, name: "bench", role: "analyst", passwordHash: null, creditAllowance: 0 });
    const { token } = await createKey(db, authSecret, { ownerId: owner.id, qpsLimit: 100_000, expiresAt: null, name: `metrics-${side}`, credits: CREDITS });
    return token;
  } finally {
    await db.close();
  }
};

const startServer = async (side: Side): Promise<BenchServer> => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `social-lookup-bench-metrics-${side}-`));
  const dataDir = path.join(runDir, "data");
  const logFile = path.join(runDir, "server.log");
  const port = await freePort();
  const { env: extra, metricsToken } = sideEnv(side);
  const env = benchServerEnv({
    port,
    dataDir,
    admin: { email: `bench-metrics-admin-${side}@example.test`, password: crypto.randomBytes(18).toString("base64url") },
    extra: { DATA_SOURCE: "store", ...extra },
  });
  const token = await prepareKey(dataDir, env.AUTH_SECRET as string, side);
  const server: BenchServer = { side, baseUrl: `http://127.0.0.1:${port}`, dataDir, runDir, logFile, token, metricsToken, process: null };
  server.process = spawnLogged(process.execPath, [TSX_CLI, "scripts/start.ts"], { cwd: ROOT, env, logFile });
  const deadline = Date.now() + 15 * 60_000;
  while (!(await fetch(`${server.baseUrl}/api/health`).then((response) => response.ok, () => false))) {
    if (Date.now() > deadline || server.process.exitCode !== null) throw new Error(`the "${side}" server did not start:\n${tail(logFile, 30)}`);
    await sleep(500);
  }
  return server;
};

const scrape = async (server: BenchServer): Promise<{ status: number; body: string }> => {
  const response = await fetch(`${server.baseUrl}/metrics`, {
    headers: server.metricsToken === null ? {} : { Authorization: `Bearer ${server.metricsToken}` },
  });
  return { status: response.status, body: await response.text() };
};

/** Scrapes every second until stopped, as a Prometheus would; counts the answers that were not 200. */
const scraper = (server: BenchServer) => {
  let scrapes = 0;
  let failures = 0;
  let firstFailure: string | null = null;
  const timer = setInterval(() => {
    scrapes += 1;
    void scrape(server).then(
      (answer) => {
        if (answer.status === 200 && answer.body.includes(REQUESTS_TOTAL)) return;
        failures += 1;
        firstFailure ??= `${answer.status} ${answer.body.slice(0, 120)}`;
      },
      (error: unknown) => {
        failures += 1;
        firstFailure ??= String(error);
      },
    );
  }, SCRAPE_EVERY_MS);
  return {
    stop: () => clearInterval(timer),
    report: () => ({ scrapes, failures, firstFailure }),
  };
};

const load = (url: string, seconds: number, connections: number, headers: Record<string, string>): Promise<AutocannonResult> =>
  startLoad({ url, duration: seconds, connections, headers }).result;

/** `cpuMs`: the server's CPU time over its followers loads (null without /proc), less noisy than requests/s on a shared machine. */
type Rounds = { followers: AutocannonResult[]; ping: AutocannonResult[]; cpuMs: number | null };

/** One turn of a side: the followers load, then Next's ping; the on side is scraped meanwhile. */
const turn = async (server: BenchServer, rounds: Rounds, seconds: number, connections: number, scrapes: { scrapes: number; failures: number; firstFailure: string | null }) => {
  const watching = server.metricsToken === null ? null : scraper(server);
  try {
    const groupId = server.process?.pid ?? -1;
    const cpuBefore = processGroupCpuMs(groupId);
    rounds.followers.push(await load(`${server.baseUrl}${FOLLOWERS_PATH}`, seconds, connections, { Authorization: `Bearer ${server.token}` }));
    const cpuAfter = processGroupCpuMs(groupId);
    rounds.cpuMs = cpuBefore === null || cpuAfter === null || rounds.cpuMs === null ? null : rounds.cpuMs + cpuAfter - cpuBefore;
    rounds.ping.push(await load(`${server.baseUrl}${PING_PATH}`, seconds, connections, {}));
  } finally {
    watching?.stop();
    const report = watching?.report();
    if (report) {
      scrapes.scrapes += report.scrapes;
      scrapes.failures += report.failures;
      scrapes.firstFailure ??= report.firstFailure;
    }
  }
};

const stopAll = async (servers: BenchServer[]) => {
  for (const server of servers) {
    if (server.process === null) continue;
    await stopGroup(server.process, 15_000);
    server.process = null;
  }
};

const mean = (results: AutocannonResult[]) => results.reduce((sum, result) => sum + result.requests.average, 0) / Math.max(1, results.length);
/** The mean of the side's rounds' p99s (autocannon gives whole milliseconds): one round's hiccup on a shared machine weighs a quarter. */
const p99 = (results: AutocannonResult[]) => Math.round(results.reduce((sum, result) => sum + result.latency.p99, 0) / Math.max(1, results.length));
const non200 = (results: AutocannonResult[]) => results.reduce((sum, result) => sum + result.requests.total - (statusCounts(result).get(200) ?? 0), 0);

/** The usage ledger of the server's database: followers requests by status (an aggregate row stands for `requests`). */
const ledgerCounts = async (server: BenchServer): Promise<Map<string, number>> => {
  const db = await openDb({ dataDir: server.dataDir, timeoutMs: 10_000 });
  try {
    const rows = await db.query<{ status: number; requests: number }>(
      "SELECT status, COALESCE(sum(requests), 0)::integer AS requests FROM usage_events WHERE operation = $1 AND channel = 'api' GROUP BY status ORDER BY status",
      [followersOperation.id],
    );
    return new Map(rows.map((row) => [String(row.status), row.requests]));
  } finally {
    await db.close();
  }
};

const describe = (counts: Map<string, number>): string =>
  [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => `${status}: ${count}`).join(", ") || "none";

const main = async () => {
  const values = parseCliOptions(USAGE, { ...LOAD_OPTIONS, keep: { type: "boolean", default: false } }, (message) => new Error(message));
  const { durationSeconds, connections } = readLoadOptions(values as { duration: string; connections: string });
  const keep = values.keep === true;
  console.log(`metrics and logs, on and off: ${machineSummary()}; autocannon ${autocannonVersion}, ${connections} connections`);
  await waitForOtherBuilds();

  const servers: BenchServer[] = [];
  const onExit = () => {
    for (const server of servers) if (server.process?.pid !== undefined) killGroupNow(server.process.pid);
  };
  process.on("exit", onExit);
  const runs: Record<Side, Rounds> = { on: { followers: [], ping: [], cpuMs: 0 }, off: { followers: [], ping: [], cpuMs: 0 } };
  const scrapes = { scrapes: 0, failures: 0, firstFailure: null as string | null };
  let problems = 0;
  try {
    // One after the other: the first start may build, and two builds must never share `.next`.
    const on = await startServer("on");
    servers.push(on);
    const off = await startServer("off");
    servers.push(off);
    const bySide: Record<Side, BenchServer> = { on, off };

    const offMetrics = await scrape(off);
    console.log(`  off: GET /metrics answers ${offMetrics.status} (expected 404)`);
    if (offMetrics.status !== 404) problems += 1;

    for (const server of servers) {
      await load(`${server.baseUrl}${FOLLOWERS_PATH}`, WARMUP_SECONDS, connections, { Authorization: `Bearer ${server.token}` });
      await load(`${server.baseUrl}${PING_PATH}`, WARMUP_SECONDS, connections, {});
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      const order: Side[] = round % 2 === 0 ? ["on", "off"] : ["off", "on"];
      console.log(`  round ${round + 1} of ${ROUNDS}: ${order.join(", then ")} (${durationSeconds} s of followers, then ${durationSeconds} s of ${PING_PATH}, each)…`);
      for (const side of order) await turn(bySide[side], runs[side], durationSeconds, connections, scrapes);
    }

    // Requests still in flight when autocannon closed its connections finish (or are released) first.
    await sleep(1500);
    const final = await scrape(on);
    if (final.status !== 200) throw new Error(`the final scrape answered ${final.status}: ${final.body.slice(0, 200)}`);
    const counted = sumSamples(countersOf(final.body, REQUESTS_TOTAL), { channel: "api", operation: followersOperation.id }, "status");

    await stopAll(servers);
    const ledger = await ledgerCounts(on);

    for (const side of ["on", "off"] as const) {
      const { followers, ping } = runs[side];
      console.log(
        `  ${side}: followers ${mean(followers).toFixed(1)} req/s (p99 ${p99(followers)} ms as the mean of rounds, per round ${followers.map((r) => r.requests.average.toFixed(0)).join("/")}); ` +
          `${PING_PATH} ${mean(ping).toFixed(1)} req/s; non-200: ${non200(followers)} / ${non200(ping)}`,
      );
      if (non200(followers) + non200(ping) > 0) problems += 1;
    }
    console.log(`  on: ${scrapes.scrapes} scrapes of /metrics during the load, ${scrapes.failures} failed${scrapes.firstFailure ? ` (first: ${scrapes.firstFailure})` : ""}`);
    if (scrapes.failures > 0) problems += 1;

    const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);
    const [metricsTotal, ledgerTotal] = [total(counted), total(ledger)];
    const sameByStatus = describe(counted) === describe(ledger);
    console.log(`  on: /metrics requests_total{channel="api",operation="${followersOperation.id}"} by status: ${describe(counted)}`);
    console.log(`  on: usage ledger, followers requests by status:                     ${describe(ledger)}${sameByStatus ? "" : "  (DIFFERENT)"}`);

    const ratio = { on: mean(runs.on.followers) / mean(runs.on.ping), off: mean(runs.off.followers) / mean(runs.off.ping) };
    const p99s = { on: p99(runs.on.followers), off: p99(runs.off.followers) };
    const p99Change = p99s.off > 0 ? (p99s.on - p99s.off) / p99s.off : 0;
    const match = metricsTotal === ledgerTotal && metricsTotal > 0;
    if (!match) problems += 1;
    console.log(`ratio_metrics_on=${ratio.on.toFixed(2)}`);
    console.log(`ratio_metrics_off=${ratio.off.toFixed(2)}`);
    console.log(`p99_metrics_on_ms=${p99s.on}`);
    console.log(`p99_metrics_off_ms=${p99s.off}`);
    const cpuPerAnswer = (rounds: Rounds) =>
      rounds.cpuMs === null ? null : rounds.cpuMs / Math.max(1, rounds.followers.reduce((sum, result) => sum + result.requests.total, 0));
    const [cpuOn, cpuOff] = [cpuPerAnswer(runs.on), cpuPerAnswer(runs.off)];
    if (cpuOn !== null && cpuOff !== null) {
      console.log(`server_cpu_ms_per_answer: on=${cpuOn.toFixed(3)} off=${cpuOff.toFixed(3)} cpu_ratio=${(cpuOff / cpuOn).toFixed(2)} (off ÷ on: ≥ 0.95 is the target's reading)`);
    }
    console.log(`followers_rps_on_over_off=${(mean(runs.on.followers) / mean(runs.off.followers)).toFixed(2)}`);
    console.log(`metrics_ratio=${(ratio.on / ratio.off).toFixed(2)} (target ≥ 0.95)`);
    console.log(`p99_change=${p99Change >= 0 ? "+" : ""}${(p99Change * 100).toFixed(1)}% (target within 10 %)`);
    console.log(`metrics_requests_total=${metricsTotal} ledger_requests=${ledgerTotal}`);
    console.log(`metrics_ledger_match=${match ? "yes" : "no"}`);
  } finally {
    await stopAll(servers);
    process.off("exit", onExit);
    for (const server of servers) {
      if (keep) console.log(`  kept ${server.runDir}`);
      else fs.rmSync(server.runDir, { recursive: true, force: true });
    }
  }
  if (problems > 0) process.exitCode = 1;
};

main().catch((error: unknown) => {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
