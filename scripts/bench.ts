import { spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { openDb } from "@/lib/database";
import { DatabaseLockedError } from "@/lib/db/lock";
import { ACCOUNT_PATH } from "@/lib/api/v1-router";
import { followersOperation } from "@/lib/operations/followers/descriptor";
import {
  addAnswers,
  addRun,
  answeredCount,
  autocannonVersion,
  checkCredits,
  describeStatuses,
  emptyTally,
  formatRow,
  freePort,
  inFlightCount,
  killGroupNow,
  LOAD_OPTIONS,
  readLoadOptions,
  releaseOnExit,
  machineSummary,
  processGroupCpuMs,
  sleep,
  spawnLogged,
  startLoad,
  statusCounts,
  stopGroup,
  tail,
  type AutocannonResult,
  type KeyTally,
  type LoadRun,
  waitForOtherBuilds,
} from "./bench-lib";
import { parseCliOptions } from "@/lib/cli/options";

/**
 * `npm run bench`: the production server (scripts/start.ts → server.ts) on a fresh embedded
 * database, loaded on Next's trivial /api/ping, on the front's own trivial answer, and on a paid
 * /v1 lookup without and with gzip, on the same key's balance (GET /v1/account, free: it must cost
 * no more than the lookup), and on the same lookup as an MCP tool call; then the server's
 * CPU time per call of each, over rounds of the two loads in turns (CPU_ROUNDS); afterwards a check that every 200 was charged exactly once and
 * every request left exactly one usage row. The last line of this part is `ratio=` (followers ÷ Next's
 * ping); then metrics and logs on against off (scripts/bench-metrics.ts) and the pooled case.
 */
const USAGE = `usage: npm run bench -- [--duration S] [--connections N] [--keep] [--no-pool] [--no-metrics]
  --duration S      seconds of load per route (default 10; each route is warmed up for 2 s first)
  --connections N   concurrent connections (default 50)
  --keep            keep the temporary data directory (database, server log)
  --no-pool         leave out the pooled case (scripts/bench-pool.ts, run after the rest)
  --no-metrics      leave out metrics and logs on against off (scripts/bench-metrics.ts, run after the rest)`;

const CREDITS_GRANTED = 100_000_000;
const QPS_LIMIT = 100_000;
/** The load comes from this machine; a few ranges before the matching one, as a real allowlist has. */
const BENCH_ALLOWED_ADDRESSES = "203.0.113.0/24,2001:db8::/32,198.51.100.7,127.0.0.0/8,::1";
const FOLLOWERS_COST_CREDITS = followersOperation.costCredits;
const WARMUP_SECONDS = 2;
const STARTUP_TIMEOUT_MS = 15 * 60_000;
const FOLLOWERS_PATH = `${followersOperation.path}?userid=2000000002`;
const PING_PATH = "/api/ping";
/** The front's own trivial answer (lib/front/front.ts): the ceiling of anything the front serves. */
const FRONT_PING_PATH = "/_front/ping";

const MCP_PATH = "/mcp";
const MCP_FOLLOWERS_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: followersOperation.id, arguments: { userid: "2000000002" } },
});

/**
 * The CPU comparison of a tool call with a /v1 call: rounds of short loads, each round both
 * routes, in turns (which one goes first alternates). This machine's speed drifts from one minute
 * to the next (a shared virtual machine: the same code measured 1.12–1.62× in single 10 s windows
 * a few minutes apart, with /v1 alone moving by 20 %); interleaved, both routes see the same machine.
 */
const CPU_ROUNDS = 4;
const CPU_SLICE_SECONDS = 3;

/** The server's CPU time per answered request over one load run (null without /proc). */
const serverMsPerRequest = (before: number | null, after: number | null, result: AutocannonResult): number | null =>
  before === null || after === null || result.requests.total === 0 ? null : (after - before) / result.requests.total;

const root = process.cwd();
const tsxCli = path.join(root, "node_modules", "tsx", "dist", "cli.mjs");

class BenchError extends Error {}

let pooledCaseSkipped = false;
let metricsCaseSkipped = false;
let poolArgs: string[] = [];

const parseOptions = () => {
  const values = parseCliOptions(
    USAGE,
    {
      ...LOAD_OPTIONS,
      keep: { type: "boolean", default: false },
      "no-pool": { type: "boolean", default: false },
      "no-metrics": { type: "boolean", default: false },
    },
    (message) => new BenchError(message),
  );
  pooledCaseSkipped = values["no-pool"] === true;
  metricsCaseSkipped = values["no-metrics"] === true;
  poolArgs = ["--duration", String(values.duration), "--connections", String(values.connections), ...(values.keep === true ? ["--keep"] : [])];
  try {
    return { ...readLoadOptions(values), keep: values.keep };
  } catch (error) {
    throw new BenchError(`${(error as Error).message}\n${USAGE}`);
  }
};

/** Everything that must not outlive the bench, released by `cleanup` (or synchronously on exit). */
const resources: { server: ChildProcess | null; dataDir: string | null; keep: boolean; load: LoadRun | null } = {
  server: null,
  dataDir: null,
  keep: false,
  load: null,
};

const serverRunning = (server: ChildProcess): boolean => server.exitCode === null && server.signalCode === null;

const cleanup = async () => {
  resources.load?.stop();
  if (resources.server !== null) await stopGroup(resources.server, 10_000);
  resources.server = null;
  removeDataDir();
};

const removeDataDir = () => {
  const { dataDir } = resources;
  resources.dataDir = null;
  if (dataDir === null) return;
  if (resources.keep) console.log(`kept data dir: ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
};

releaseOnExit({
  onExit: () => {
    const { server } = resources;
    if (server?.pid !== undefined) killGroupNow(server.pid);
    removeDataDir();
  },
  cleanup,
});

/** Environment of the CLI and the server: the temp database only, never a configured PostgreSQL or Redis. */
const childEnv = (port: number, dataDir: string, authSecret: string): NodeJS.ProcessEnv => {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited.DATABASE_URL;
  delete inherited.REDIS_URL;
  delete inherited.PUBLIC_URL;
  return { ...inherited, PORT: String(port), DATA_DIR: dataDir, AUTH_SECRET: authSecret };
};

const issuedKey = z.object({ id: z.string(), token: z.string(), credits: z.number(), qps: z.number() });

/** The key is issued through the CLI before the server starts: the embedded database allows one process. */
const createKey = (env: NodeJS.ProcessEnv, name = "bench") => {
  const result = spawnSync(
    process.execPath,
    [
      tsxCli,
      "scripts/keys.ts",
      "create",
      "--name",
      name,
      "--credits",
      String(CREDITS_GRANTED),
      "--qps",
      String(QPS_LIMIT),
      // Scoped and allowlisted, as a key handed to a script would be: the hot path checks both.
      "--operations",
      followersOperation.id,
      "--allowed-addresses",
      BENCH_ALLOWED_ADDRESSES,
      "--json",
    ],
    { cwd: root, env, encoding: "utf8" },
  );
  if (result.status !== 0) {
    throw new BenchError(`keys create failed (exit ${result.status ?? result.signal}):\n${result.stderr.trim() || result.stdout.trim()}`);
  }
  const lastLine = result.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return issuedKey.parse(JSON.parse(lastLine));
  } catch {
    throw new BenchError(`keys create printed no key JSON:\n${result.stdout.trim()}`);
  }
};

const waitUntilHealthy = async (server: ChildProcess, baseUrl: string, logFile: string) => {
  const startedAt = Date.now();
  let buildAnnounced = false;
  while (Date.now() - startedAt < STARTUP_TIMEOUT_MS) {
    if (!serverRunning(server)) {
      throw new BenchError(`the server exited during startup (exit ${server.exitCode ?? server.signalCode}); last log lines:\n${tail(logFile, 30)}`);
    }
    if (!buildAnnounced && tail(logFile, 200).includes("Building the application")) {
      console.log("building the app first (no current build for these sources; this can take a few minutes)…");
      buildAnnounced = true;
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) return (Date.now() - startedAt) / 1000;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new BenchError(`the server was not healthy after ${STARTUP_TIMEOUT_MS / 60_000} minutes; last log lines:\n${tail(logFile, 30)}`);
};

const runLoad = async (
  url: string,
  seconds: number,
  connections: number,
  headers: Record<string, string>,
  request: { method?: "POST"; body?: string } = {},
) => {
  const load = startLoad({ url, duration: seconds, connections, headers, ...request });
  resources.load = load;
  try {
    const result = await load.result;
    return { result, firstError: load.firstError() };
  } finally {
    resources.load = null;
  }
};

/** One request with the key, to show what a non-200 answer says. It counts towards the key's usage. */
const sampleAnswer = async (url: string, headers: Record<string, string>, tally: KeyTally) => {
  const response = await fetch(url, { headers });
  const body = await response.text();
  return {
    tally: addAnswers(tally, 1, new Map([[response.status, 1]])),
    line: `  sample answer: ${response.status} ${body.slice(0, 300)}`,
  };
};

type Measured = { label: string; result: AutocannonResult; firstError: string | null };

const reportTable = (rows: Measured[]) => {
  const widths = [44, 10, 8, 8, 8, 7];
  console.log(formatRow(["route", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors"], widths));
  for (const { label, result } of rows) {
    console.log(
      formatRow(
        [
          label,
          result.requests.average.toFixed(1),
          String(result.latency.p50),
          String(result.latency.p99),
          String(result.non2xx),
          String(result.errors),
        ],
        widths,
      ),
    );
  }
};

const readKeyFigures = async (dataDir: string, keyId: string) => {
  let attempt = 0;
  for (;;) {
    try {
      const db = await openDb({ dataDir, timeoutMs: 5000 });
      try {
        const [key] = await db.query<{ credits_granted: number; credits_remaining: number }>(
          "SELECT credits_granted::integer AS credits_granted, credits_remaining::integer AS credits_remaining FROM api_keys WHERE id = $1",
          [keyId],
        );
        const [usage] = await db.query<{ rows: number; ok_rows: number }>(
          // An aggregate of free refusals stands for `requests` requests.
          "SELECT COALESCE(sum(requests), 0)::integer AS rows, (count(*) FILTER (WHERE status = 200))::integer AS ok_rows FROM usage_events WHERE key_id = $1",
          [keyId],
        );
        if (!key || !usage) throw new BenchError(`key ${keyId} is not in the database`);
        return { creditsGranted: key.credits_granted, creditsRemaining: key.credits_remaining, usageRows: usage.rows, usage200Rows: usage.ok_rows };
      } finally {
        await db.close();
      }
    } catch (error) {
      // The server's last process may take a moment to release the lock after its group is gone.
      if (!(error instanceof DatabaseLockedError) || attempt >= 20) throw error;
      attempt += 1;
      await sleep(250);
    }
  }
};

const main = async () => {
  const { durationSeconds, connections, keep } = parseOptions();
  resources.keep = keep;
  console.log(machineSummary());
  console.log(
    `load: autocannon ${autocannonVersion} in this process, ${connections} connections, ${WARMUP_SECONDS} s warm-up + ${durationSeconds} s per route`,
  );

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "social-lookup-bench-"));
  resources.dataDir = dataDir;
  const logFile = path.join(dataDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = childEnv(port, dataDir, crypto.randomBytes(32).toString("base64url"));
  console.log(`data dir: ${dataDir}${keep ? " (kept)" : " (removed on exit)"}`);

  const key = createKey(env);
  console.log(`key: ${key.id} with ${key.credits} credits and ${key.qps} requests/s, scoped to ${followersOperation.id}, allowed from ${BENCH_ALLOWED_ADDRESSES}`);
  const mcpKey = createKey(env, "bench-mcp");

  await waitForOtherBuilds();
  const server = spawnLogged(process.execPath, [tsxCli, "scripts/start.ts"], { cwd: root, env, logFile });
  resources.server = server;
  const startupSeconds = await waitUntilHealthy(server, baseUrl, logFile);
  console.log(`server: ${baseUrl} healthy after ${startupSeconds.toFixed(1)} s (pid ${server.pid}, log ${logFile})`);

  const authHeaders = { Authorization: `Bearer ${key.token}` };
  const followersUrl = `${baseUrl}${FOLLOWERS_PATH}`;

  console.log(`\nwarming up GET ${PING_PATH} (${WARMUP_SECONDS} s)…`);
  await runLoad(`${baseUrl}${PING_PATH}`, WARMUP_SECONDS, connections, {});
  console.log(`loading GET ${PING_PATH} (${durationSeconds} s)…`);
  const ping = await runLoad(`${baseUrl}${PING_PATH}`, durationSeconds, connections, {});

  console.log(`warming up GET ${FRONT_PING_PATH} (${WARMUP_SECONDS} s)…`);
  await runLoad(`${baseUrl}${FRONT_PING_PATH}`, WARMUP_SECONDS, connections, {});
  console.log(`loading GET ${FRONT_PING_PATH} (${durationSeconds} s)…`);
  const frontPing = await runLoad(`${baseUrl}${FRONT_PING_PATH}`, durationSeconds, connections, {});

  console.log(`warming up GET ${FOLLOWERS_PATH} (${WARMUP_SECONDS} s)…`);
  const warmup = await runLoad(followersUrl, WARMUP_SECONDS, connections, authHeaders);
  let tally = addRun(emptyTally(), warmup.result);
  if ((tally.answered.get(200) ?? 0) === 0) {
    const sample = await sampleAnswer(followersUrl, authHeaders, tally);
    throw new BenchError(
      `the followers warm-up got no 200 (answers: ${describeStatuses(tally.answered)}${warmup.firstError ? `; first error: ${warmup.firstError}` : ""})\n${sample.line}`,
    );
  }
  console.log(`loading GET ${FOLLOWERS_PATH} (${durationSeconds} s)…`);
  const cpuBeforeV1 = processGroupCpuMs(server.pid ?? -1);
  const followers = await runLoad(followersUrl, durationSeconds, connections, authHeaders);
  const v1ServerMs = serverMsPerRequest(cpuBeforeV1, processGroupCpuMs(server.pid ?? -1), followers.result);
  tally = addRun(tally, followers.result);
  console.log(`loading GET ${FOLLOWERS_PATH} with Accept-Encoding: gzip (${durationSeconds} s)…`);
  const followersGzip = await runLoad(followersUrl, durationSeconds, connections, { ...authHeaders, "Accept-Encoding": "gzip" });
  tally = addRun(tally, followersGzip.result);

  // The balance of the same key, polled as scripts and agents poll it, right after the lookups
  // (its usage rows are there to be summed). Free: it changes neither the credits nor the usage.
  const accountUrl = `${baseUrl}${ACCOUNT_PATH}`;
  console.log(`warming up GET ${ACCOUNT_PATH} (${WARMUP_SECONDS} s)…`);
  const accountWarmup = await runLoad(accountUrl, WARMUP_SECONDS, connections, authHeaders);
  console.log(`loading GET ${ACCOUNT_PATH} (${durationSeconds} s)…`);
  const cpuBeforeAccount = processGroupCpuMs(server.pid ?? -1);
  const account = await runLoad(accountUrl, durationSeconds, connections, authHeaders);
  const accountServerMs = serverMsPerRequest(cpuBeforeAccount, processGroupCpuMs(server.pid ?? -1), account.result);

  // The same lookup as an MCP tool call (stateless: nothing kept between requests), on its own key.
  const mcpHeaders = { Authorization: `Bearer ${mcpKey.token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const mcpRequest = { method: "POST" as const, body: MCP_FOLLOWERS_CALL };
  const mcpSlices: AutocannonResult[] = [];
  console.log(`warming up POST ${MCP_PATH} tools/call ${followersOperation.id} (${WARMUP_SECONDS} s)…`);
  await runLoad(`${baseUrl}${MCP_PATH}`, WARMUP_SECONDS, connections, mcpHeaders, mcpRequest);
  console.log(`loading POST ${MCP_PATH} tools/call ${followersOperation.id} (${durationSeconds} s)…`);
  const cpuBeforeMcp = processGroupCpuMs(server.pid ?? -1);
  const mcp = await runLoad(`${baseUrl}${MCP_PATH}`, durationSeconds, connections, mcpHeaders, mcpRequest);
  const mcpServerMs = serverMsPerRequest(cpuBeforeMcp, processGroupCpuMs(server.pid ?? -1), mcp.result);

  console.log(`comparing server CPU per call: ${CPU_ROUNDS} rounds of ${CPU_SLICE_SECONDS} s of /v1 and ${CPU_SLICE_SECONDS} s of ${MCP_PATH}, in turns…`);
  const interleaved = { v1: { ms: 0, calls: 0 }, mcp: { ms: 0, calls: 0 }, roundRatios: [] as number[] };
  for (let round = 0; round < CPU_ROUNDS; round += 1) {
    const perCall = { v1: 0, mcp: 0 };
    const sides = round % 2 === 0 ? (["v1", "mcp"] as const) : (["mcp", "v1"] as const);
    for (const side of sides) {
      const before = processGroupCpuMs(server.pid ?? -1);
      const run =
        side === "v1"
          ? await runLoad(followersUrl, CPU_SLICE_SECONDS, connections, authHeaders)
          : await runLoad(`${baseUrl}${MCP_PATH}`, CPU_SLICE_SECONDS, connections, mcpHeaders, mcpRequest);
      const after = processGroupCpuMs(server.pid ?? -1);
      if (side === "v1") tally = addRun(tally, run.result);
      else mcpSlices.push(run.result);
      if (before === null || after === null) continue;
      interleaved[side].ms += after - before;
      interleaved[side].calls += run.result.requests.total;
      perCall[side] = (after - before) / Math.max(1, run.result.requests.total);
    }
    if (perCall.v1 > 0) interleaved.roundRatios.push(perCall.mcp / perCall.v1);
  }

  console.log("");
  reportTable([
    { label: `GET ${PING_PATH} (Next)`, ...ping },
    { label: `GET ${FRONT_PING_PATH} (front)`, ...frontPing },
    { label: `GET ${FOLLOWERS_PATH}`, ...followers },
    { label: `  … Accept-Encoding: gzip`, ...followersGzip },
    { label: `GET ${ACCOUNT_PATH} (same key)`, ...account },
    { label: `POST ${MCP_PATH} (tool ${followersOperation.id})`, ...mcp },
  ]);
  console.log("");

  let problems = 0;
  for (const [name, run] of [["ping", ping], ["front ping", frontPing], ["account warm-up", accountWarmup], ["account", account]] as const) {
    if (run.result.non2xx > 0 || run.result.errors > 0) {
      problems += 1;
      console.log(`${name}: ERRORS: answers ${describeStatuses(statusCounts(run.result))}, ${run.result.errors} connection errors${run.firstError ? ` (first: ${run.firstError})` : ""}`);
    }
  }
  const loadOk = (statusCounts(followers.result).get(200) ?? 0) + (statusCounts(followersGzip.result).get(200) ?? 0);
  const nonOk = answeredCount(tally) - (tally.answered.get(200) ?? 0);
  const connectionErrors = followers.result.errors + followersGzip.result.errors + warmup.result.errors;
  if (nonOk === 0 && connectionErrors === 0) {
    console.log(`followers: all ${loadOk} answers of the load were 200 (plus ${warmup.result.requests.total} in the warm-up)`);
  } else {
    problems += 1;
    const firstError = followers.firstError ?? followersGzip.firstError ?? warmup.firstError;
    console.log(
      `followers: ERRORS: answers ${describeStatuses(tally.answered)} (warm-up + load), ` +
        `${connectionErrors} connection errors (${followers.result.timeouts + followersGzip.result.timeouts + warmup.result.timeouts} timeouts)` +
        (firstError ? `, first: ${firstError}` : ""),
    );
    if (nonOk > 0) {
      const sample = await sampleAnswer(followersUrl, authHeaders, tally);
      tally = sample.tally;
      console.log(sample.line);
    }
  }

  // Requests still in flight when autocannon closed its connections are served all the same.
  await sleep(1000);
  await stopGroup(server, 10_000);
  resources.server = null;

  const figures = await readKeyFigures(dataDir, key.id);
  const check = checkCredits(tally, { ...figures, costCredits: FOLLOWERS_COST_CREDITS });
  const inFlight = inFlightCount(tally);
  console.log(
    `credits: granted ${figures.creditsGranted}, remaining ${figures.creditsRemaining}, expected ${check.expectedRemaining} ` +
      `= granted − ${FOLLOWERS_COST_CREDITS} × ${check.charged200s} 200s (${tally.answered.get(200) ?? 0} answered + ${inFlight} in flight when the load stopped) ` +
      (check.creditsOk ? "OK" : "MISMATCH"),
  );
  console.log(
    `usage_events: ${figures.usageRows} rows for the key (${figures.usage200Rows} with status 200), expected ${check.expectedUsageRows} ` +
      `= requests sent with the key (${answeredCount(tally)} answered + ${inFlight} in flight) ` +
      (check.usageOk ? "OK" : "MISMATCH"),
  );
  if (!check.creditsOk || !check.usageOk) problems += 1;
  const mcpFigures = await readKeyFigures(dataDir, mcpKey.id);
  const mcpCreditsOk = mcpFigures.creditsGranted - mcpFigures.creditsRemaining === FOLLOWERS_COST_CREDITS * mcpFigures.usage200Rows;
  console.log(
    `mcp key: ${mcpFigures.usage200Rows} tool calls charged, ${mcpFigures.creditsGranted - mcpFigures.creditsRemaining} credits spent ` +
      `= ${FOLLOWERS_COST_CREDITS} × ${mcpFigures.usage200Rows} ${mcpCreditsOk ? "OK" : "MISMATCH"}`,
  );
  if (!mcpCreditsOk || [mcp.result, ...mcpSlices].some((result) => result.non2xx > 0 || result.errors > 0)) problems += 1;

  const ratio = followers.result.requests.average / ping.result.requests.average;
  const ceilingShare = followers.result.requests.average / frontPing.result.requests.average;
  if (problems > 0) process.exitCode = 1;
  await cleanup();
  console.log(`p99_v1_ms=${followers.result.latency.p99} (at ${connections} connections; gzip: ${followersGzip.result.latency.p99})`);
  console.log(
    `account: ${account.result.requests.average.toFixed(1)} req/s p99 ${account.result.latency.p99} ms; ` +
      `followers: ${followers.result.requests.average.toFixed(1)} req/s p99 ${followers.result.latency.p99} ms (at ${connections} connections)`,
  );
  if (accountServerMs !== null && v1ServerMs !== null) {
    // Less noisy than requests/s on a shared machine: the server's own CPU time per answer.
    console.log(`server_cpu_ms_per_answer: account=${accountServerMs.toFixed(3)} followers=${v1ServerMs.toFixed(3)} (the two 10 s windows)`);
  }
  console.log(`account_ratio=${(account.result.requests.average / followers.result.requests.average).toFixed(2)}`);
  console.log(`gzip_ratio=${(followersGzip.result.requests.average / ping.result.requests.average).toFixed(2)}`);
  console.log(`ceiling_share=${ceilingShare.toFixed(2)}`);
  if (v1ServerMs !== null && mcpServerMs !== null) {
    // The 10 s windows of the table, one after the other: what the first measurement of this figure did.
    console.log(`server_cpu_single_windows: v1=${v1ServerMs.toFixed(3)} mcp=${mcpServerMs.toFixed(3)} mcp_ratio=${(mcpServerMs / v1ServerMs).toFixed(2)}`);
  }
  if (interleaved.v1.calls > 0 && interleaved.mcp.calls > 0) {
    const v1Ms = interleaved.v1.ms / interleaved.v1.calls;
    const mcpMs = interleaved.mcp.ms / interleaved.mcp.calls;
    console.log(`mcp_ratio_per_round=${interleaved.roundRatios.map((ratio) => ratio.toFixed(2)).join(",")}`);
    console.log(`server_cpu_ms_per_call: v1=${v1Ms.toFixed(3)} mcp=${mcpMs.toFixed(3)} mcp_ratio=${(mcpMs / v1Ms).toFixed(2)} (${CPU_ROUNDS} interleaved rounds)`);
  }
  console.log(`ratio=${ratio.toFixed(2)}`);
  // Metrics and JSON logs on against off (scripts/bench-metrics.ts): two servers of their own, after this one has stopped.
  if (!metricsCaseSkipped) {
    console.log("");
    const measured = spawnSync(process.execPath, [tsxCli, "scripts/bench-metrics.ts", ...poolArgs], { cwd: root, stdio: "inherit" });
    if (measured.status !== 0) process.exitCode = 1;
  }
  // The pooled case (scripts/bench-pool.ts): its own servers, after this one has stopped.
  if (!pooledCaseSkipped) {
    console.log("");
    const pooled = spawnSync(process.execPath, [tsxCli, "scripts/bench-pool.ts", ...poolArgs], { cwd: root, stdio: "inherit" });
    if (pooled.status !== 0) process.exitCode = 1;
  }
};

main().catch(async (error: unknown) => {
  console.error(`error: ${error instanceof BenchError || error instanceof DatabaseLockedError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  if (resources.server !== null && resources.dataDir !== null && !resources.keep) {
    console.error(`(rerun with --keep to keep the data dir and server log)`);
  }
  await cleanup();
  process.exit(1);
});
