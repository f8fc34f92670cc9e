import { fork, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { openDb } from "@/lib/database";
import { followers } from "@/lib/operations/followers";
import {
  addRun,
  answeredCount,
  autocannonVersion,
  checkCredits,
  describeStatuses,
  emptyTally,
  inFlightCount,
  LOAD_OPTIONS,
  readLoadOptions,
  machineSummary,
  sleep,
  startLoad,
} from "./bench-lib";
import { parseCliOptions } from "@/lib/cli/options";

/**
 * `npx tsx scripts/profile-pipeline.ts`: the /v1 lookup pipeline (runLookup with the process's
 * real services) behind a bare node:http server on a fresh embedded database with the demo
 * data, loaded with autocannon — so the pipeline's own cost is measured without Next's. The
 * server runs in a child process (optionally under `node --cpu-prof`); afterwards the database
 * is checked: every 200 charged exactly once, one usage row per request sent.
 */
const USAGE = `usage: npx tsx scripts/profile-pipeline.ts [--duration S] [--connections N] [--cpu-prof DIR] [--keep]
  --duration S      seconds of load (default 10, after a 2 s warm-up)
  --connections N   concurrent connections (default 50)
  --cpu-prof DIR    write the server's V8 CPU profile (.cpuprofile) into DIR
  --keep            keep the temporary data directory`;

const FOLLOWERS_PATH = `${followers.path}?userid=2000000002`;
const FOLLOWERS_COST_CREDITS = followers.costCredits;
const CREDITS_GRANTED = 100_000_000;
const QPS_LIMIT = 100_000;
const WARMUP_SECONDS = 2;

class ProfileError extends Error {}

const readyMessage = z.object({ kind: z.literal("ready"), port: z.number(), keyId: z.string(), token: z.string() });
const cpuMessage = z.object({ kind: z.literal("cpu"), micros: z.number() });

/** The server side: the real services of lib/services.ts and runLookup, nothing else. */
const serve = async () => {
  const [{ services }, { operationByPath }, { runLookup }, { getDb, closeDb }, { seedDemoData }, { createKey }, { authSecret }, { env }] =
    await Promise.all([
      import("@/lib/services"),
      import("@/lib/operations"),
      import("@/lib/api/pipeline"),
      import("@/lib/database"),
      import("@/lib/demo/seed"),
      import("@/lib/keys/repository"),
      import("@/lib/security/secrets"),
      import("@/lib/env"),
    ]);
  const db = await getDb();
  await seedDemoData(db, env().publicUrl);
  const { key, token } = await createKey(db, authSecret(), {
    name: "profile",
    ownerId: null,
    credits: CREDITS_GRANTED,
    qpsLimit: QPS_LIMIT,
    expiresAt: null,
  });
  const deps = await services();

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const operation = operationByPath(url.pathname);
    if (!operation || request.method !== "GET") {
      response.writeHead(404, { "Content-Type": "application/json" }).end("{}");
      return;
    }
    runLookup(operation, { authorization: request.headers.authorization ?? null, query: url.searchParams, clientAddress: "127.0.0.1" }, deps).then(
      (result) => {
        response.writeHead(result.status, { ...result.headers, "Content-Type": "application/json; charset=utf-8" }).end(result.body);
      },
      () => response.writeHead(500).end(),
    );
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new ProfileError("no port");
    process.send?.({ kind: "ready", port: address.port, keyId: key.id, token });
  });

  // "cpu": the server's CPU time so far (µs), a figure far less sensitive than req/s to other
  // processes sharing the machine. "stop": finish what is in flight, write every pending
  // settlement, close the database.
  process.on("message", (message) => {
    if (message === "cpu") {
      const usage = process.cpuUsage();
      process.send?.({ kind: "cpu", micros: usage.user + usage.system });
      return;
    }
    if (message !== "stop") return;
    server.close();
    server.closeAllConnections();
    void (async () => {
      await sleep(500);
      await deps.settler.drain();
      await closeDb();
      process.exit(0);
    })();
  });
};

const parseOptions = () => {
  const values = parseCliOptions(USAGE, {
    ...LOAD_OPTIONS,
    "cpu-prof": { type: "string" },
    keep: { type: "boolean", default: false },
    serve: { type: "boolean", default: false },
  });
  try {
    return { ...readLoadOptions(values), cpuProfDir: values["cpu-prof"], keep: values.keep, serve: values.serve };
  } catch (error) {
    throw new ProfileError(`${(error as Error).message}\n${USAGE}`);
  }
};

const startServer = (dataDir: string, cpuProfDir: string | undefined) => {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited.DATABASE_URL;
  delete inherited.REDIS_URL;
  delete inherited.PUBLIC_URL;
  const child = fork(path.resolve("scripts/profile-pipeline.ts"), ["--serve"], {
    execArgv: ["--import", "tsx", ...(cpuProfDir ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(cpuProfDir)] : [])],
    env: { ...inherited, NODE_ENV: "production", DATA_DIR: dataDir, AUTH_SECRET: crypto.randomBytes(32).toString("base64url") },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = new Promise<z.infer<typeof readyMessage>>((resolve, reject) => {
    child.on("message", (message) => {
      const parsed = readyMessage.safeParse(message);
      if (parsed.success) resolve(parsed.data);
    });
    child.on("exit", (code) => reject(new ProfileError(`the server exited during startup (exit ${code})`)));
  });
  return { child, ready };
};

const serverCpuMicros = (child: ChildProcess) =>
  new Promise<number>((resolve) => {
    const listener = (message: unknown) => {
      const parsed = cpuMessage.safeParse(message);
      if (!parsed.success) return;
      child.off("message", listener);
      resolve(parsed.data.micros);
    };
    child.on("message", listener);
    child.send("cpu");
  });

const stopServer = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on("exit", () => resolve());
    child.send("stop");
  });

const main = async () => {
  const options = parseOptions();
  if (options.serve) return serve();
  console.log(machineSummary());
  console.log(`load: autocannon ${autocannonVersion}, ${options.connections} connections, ${WARMUP_SECONDS} s warm-up + ${options.durationSeconds} s`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-profile-"));
  const { child, ready } = startServer(dataDir, options.cpuProfDir);
  try {
    const server = await ready;
    const url = `http://127.0.0.1:${server.port}${FOLLOWERS_PATH}`;
    const headers = { Authorization: `Bearer ${server.token}` };
    const warmup = await startLoad({ url, duration: WARMUP_SECONDS, connections: options.connections, headers }).result;
    const cpuBefore = await serverCpuMicros(child);
    const load = startLoad({ url, duration: options.durationSeconds, connections: options.connections, headers });
    const measured = await load.result;
    const cpuMicros = (await serverCpuMicros(child)) - cpuBefore;
    const tally = addRun(addRun(emptyTally(), warmup), measured);
    await stopServer(child);

    const db = await openDb({ dataDir, timeoutMs: 10_000 });
    const [figures] = await db.query<{ credits_granted: number; credits_remaining: number; usage_rows: number }>(
      `SELECT k.credits_granted::integer AS credits_granted, k.credits_remaining::integer AS credits_remaining,
         (SELECT COALESCE(sum(u.requests), 0)::integer FROM usage_events u WHERE u.key_id = k.id) AS usage_rows
       FROM api_keys k WHERE k.id = $1`,
      [server.keyId],
    );
    await db.close();
    if (!figures) throw new ProfileError(`key ${server.keyId} is not in the database`);
    const check = checkCredits(tally, {
      creditsGranted: figures.credits_granted,
      creditsRemaining: figures.credits_remaining,
      usageRows: figures.usage_rows,
      costCredits: FOLLOWERS_COST_CREDITS,
    });

    console.log(`req/s=${measured.requests.average.toFixed(1)} p50=${measured.latency.p50}ms p99=${measured.latency.p99}ms`);
    console.log(`server CPU per request: ${(cpuMicros / Math.max(1, measured.requests.total)).toFixed(0)} µs (${(cpuMicros / 1000).toFixed(0)} ms over ${measured.requests.total} answers)`);
    console.log(`answers (warm-up + load): ${describeStatuses(tally.answered)}; ${measured.errors + warmup.errors} connection errors`);
    console.log(
      `credits: remaining ${figures.credits_remaining}, expected ${check.expectedRemaining} ` +
        `(${check.charged200s} charged = ${tally.answered.get(200) ?? 0} answered 200 + ${inFlightCount(tally)} in flight) ${check.creditsOk ? "OK" : "MISMATCH"}`,
    );
    console.log(
      `usage_events: ${figures.usage_rows} rows, expected ${check.expectedUsageRows} ` +
        `(${answeredCount(tally)} answered + ${inFlightCount(tally)} in flight) ${check.usageOk ? "OK" : "MISMATCH"}`,
    );
    const non200 = answeredCount(tally) - (tally.answered.get(200) ?? 0);
    if (!check.creditsOk || !check.usageOk || non200 > 0) process.exitCode = 1;
    if (options.cpuProfDir) console.log(`cpu profile written to ${path.resolve(options.cpuProfDir)}`);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    if (options.keep) console.log(`kept data dir: ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(`error: ${error instanceof ProfileError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
