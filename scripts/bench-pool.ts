import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
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
  sleep,
  spawnLogged,
  startLoad,
  statusCounts,
  stopGroup,
  tail,
  waitForOtherBuilds,
  type AutocannonResult,
} from "./bench-lib";

/**
 * The pooled case of `npm run bench` (docs/teams.md "The pool"): 10 keys of one team workspace
 * drawing on one pool, against 10 keys with balances of their own, on the same server in the same
 * run, in turns (own, pooled, then pooled, own), each load spread over the 10 keys in turn at N
 * connections. On the embedded database, and on PostgreSQL when 127.0.0.1:5432 answers. Prints
 * `pool_ratio_<database>=` (pooled ÷ own requests/s; the target is ≥ 0.9), then checks that the
 * pool lost exactly the credits of the 200s its keys got.
 */
const USAGE = `usage: npm run bench:pool -- [--duration S] [--connections N] [--keep]
  --duration S      seconds of load per run (default 10; 2 s of warm-up first)
  --connections N   concurrent connections (default 50)
  --keep            keep the data dirs and server logs`;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const POSTGRES = "postgresql://postgres@127.0.0.1:5432/test";
const KEYS = 10;
const ROUNDS = 2;
const WARMUP_SECONDS = 2;
const CREDITS = 1_000_000_000;
const FOLLOWERS_PATH = `${followersOperation.path}?userid=2000000002`;

type Keys = { own: string[]; pooled: string[]; poolId: string; pooledIds: string[] };

/** The two sets of keys, written before the server starts (the embedded database admits one process). */
const prepareKeys = async (dataDir: string, databaseUrl: string | undefined, authSecret: string): Promise<Keys> => {
  const db = await openDb({ dataDir, databaseUrl, timeoutMs: 10_000 });
  try {
    const owner = await createUser(db, { email: "bench-pool@example.test", name: "bench", role: "analyst", passwordHash: null, creditAllowance: 0 });
    const poolId = `wst_bench_${crypto.randomBytes(4).toString("hex")}`;
    await db.query("INSERT INTO workspaces (id, name, pool_credits, pool_granted) VALUES ($1, 'Bench team', $2, $2)", [poolId, CREDITS]);
    await db.query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [poolId, owner.id]);
    const own: string[] = [];
    const pooled: string[] = [];
    const pooledIds: string[] = [];
    for (let index = 0; index < KEYS; index += 1) {
      const base = { ownerId: owner.id, qpsLimit: 100_000, expiresAt: null };
      own.push((await createKey(db, authSecret, { ...base, name: `own-${index}`, credits: CREDITS })).token);
      const team = await createKey(db, authSecret, { ...base, name: `pooled-${index}`, credits: 0, workspaceId: poolId });
      pooled.push(team.token);
      pooledIds.push(team.key.id);
    }
    return { own, pooled, poolId, pooledIds };
  } finally {
    await db.close();
  }
};

/** One load over the keys in turn: each connection walks the 10 keys' requests round and round. */
const load = (baseUrl: string, tokens: string[], seconds: number, connections: number): Promise<AutocannonResult> =>
  startLoad({
    url: baseUrl,
    duration: seconds,
    connections,
    requests: tokens.map((token) => ({ method: "GET", path: FOLLOWERS_PATH, headers: { Authorization: `Bearer ${token}` } })),
  }).result;

const runDatabase = async (label: "pglite" | "postgres", options: { seconds: number; connections: number; keep: boolean }) => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `social-lookup-bench-pool-${label}-`));
  const dataDir = path.join(runDir, "data");
  const logFile = path.join(runDir, "server.log");
  let databaseUrl: string | undefined;
  let dropSchema = async () => undefined as void;
  if (label === "postgres") {
    const schema = `bench_pool_${crypto.randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: POSTGRES, connectionTimeoutMillis: 3000 });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    databaseUrl = `${POSTGRES}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    dropSchema = async () => {
      const dropper = new pg.Client({ connectionString: POSTGRES, connectionTimeoutMillis: 3000 });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await dropper.end();
    };
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = benchServerEnv({
    port,
    dataDir,
    admin: { email: "bench-pool-admin@example.test", password: crypto.randomBytes(18).toString("base64url") },
    extra: { DATA_SOURCE: "store", ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) },
  });
  const keys = await prepareKeys(dataDir, databaseUrl, env.AUTH_SECRET as string);
  const server = spawnLogged(process.execPath, [TSX_CLI, "scripts/start.ts"], { cwd: ROOT, env, logFile });
  const groupId = server.pid;
  if (groupId === undefined) throw new Error("could not start the server");
  const onExit = () => killGroupNow(groupId);
  process.on("exit", onExit);
  const runs = { own: [] as AutocannonResult[], pooled: [] as AutocannonResult[] };
  try {
    const deadline = Date.now() + 15 * 60_000;
    while (!(await fetch(`${baseUrl}/api/health`).then((response) => response.ok, () => false))) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${tail(logFile, 30)}`);
      await sleep(500);
    }
    await load(baseUrl, keys.own, WARMUP_SECONDS, options.connections);
    await load(baseUrl, keys.pooled, WARMUP_SECONDS, options.connections);
    // Own, pool, then pool, own: each side gets the first and the last turn once (ABBA).
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (["own", "pooled"] as const) : (["pooled", "own"] as const);
      console.log(`  ${label}: round ${round + 1} of ${ROUNDS}: ${order.join(", then ")} (${options.seconds} s each)…`);
      for (const side of order) runs[side].push(await load(baseUrl, keys[side], options.seconds, options.connections));
    }
    await sleep(1000);
  } finally {
    await stopGroup(server, 15_000);
    process.off("exit", onExit);
  }

  // Exact: what the pool lost is what its keys' usage rows charged.
  const db = await openDb({ dataDir, databaseUrl, timeoutMs: 10_000 });
  let check: string;
  try {
    const [pool] = await db.query<{ spent: string }>("SELECT (pool_granted - pool_credits)::text AS spent FROM workspaces WHERE id = $1", [keys.poolId]);
    const [usage] = await db.query<{ charged: string }>(
      "SELECT COALESCE(sum(credits_charged), 0)::text AS charged FROM usage_events WHERE key_id = ANY($1::text[])",
      [keys.pooledIds],
    );
    check = `pool spent ${pool?.spent} = usage charged ${usage?.charged} ${pool?.spent === usage?.charged ? "OK" : "MISMATCH"}`;
    if (pool?.spent !== usage?.charged) process.exitCode = 1;
  } finally {
    await db.close();
    if (options.keep) console.log(`  kept ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
    await dropSchema();
  }
  const mean = (results: AutocannonResult[]) => results.reduce((sum, result) => sum + result.requests.average, 0) / results.length;
  const p99 = (results: AutocannonResult[]) => Math.max(...results.map((result) => result.latency.p99));
  const non200 = (results: AutocannonResult[]) =>
    results.reduce((sum, result) => sum + result.requests.total - (statusCounts(result).get(200) ?? 0), 0);
  const [own, pooled] = [mean(runs.own), mean(runs.pooled)];
  console.log(
    `  ${label}: own balances ${own.toFixed(1)} req/s (p99 ${p99(runs.own)} ms, per round ${runs.own.map((r) => r.requests.average.toFixed(0)).join("/")}); ` +
      `one pool ${pooled.toFixed(1)} req/s (p99 ${p99(runs.pooled)} ms, per round ${runs.pooled.map((r) => r.requests.average.toFixed(0)).join("/")}); ` +
      `non-200: ${non200(runs.own)} / ${non200(runs.pooled)}`,
  );
  console.log(`  ${label}: ${check}`);
  if (non200(runs.own) + non200(runs.pooled) > 0) process.exitCode = 1;
  return pooled / own;
};

const main = async () => {
  const values = parseCliOptions(USAGE, { ...LOAD_OPTIONS, keep: { type: "boolean", default: false } }, (message) => new Error(message));
  const { durationSeconds, connections } = readLoadOptions(values as { duration: string; connections: string });
  console.log(`pooled case: ${machineSummary()}; autocannon ${autocannonVersion}, ${connections} connections over ${KEYS} keys`);
  await waitForOtherBuilds();
  const ratios: string[] = [];
  const databases: ("pglite" | "postgres")[] = ["pglite"];
  const reachable = await (async () => {
    const client = new pg.Client({ connectionString: POSTGRES, connectionTimeoutMillis: 1500 });
    try {
      await client.connect();
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  if (reachable) databases.push("postgres");
  else console.log("  postgres: skipped — 127.0.0.1:5432 does not answer");
  for (const database of databases) {
    const ratio = await runDatabase(database, { seconds: durationSeconds, connections, keep: values.keep === true });
    ratios.push(`pool_ratio_${database}=${ratio.toFixed(2)}`);
  }
  for (const line of ratios) console.log(line);
};

main().catch((error: unknown) => {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
