import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { serverArgs } from "@/scripts/server-process";
import { freePort, groupAlive, inheritedEnv, randomSecret, runCaptured, signalGroup, type CapturedRun } from "@/lib/cli/processes";

/**
 * The API suite's servers: what a target is, the keys every test file gets, and how to start,
 * stop and inspect a production server of this repository. The global setup and the test files
 * share this module; servers run detached (own process group, output to a log file) so that a
 * test file may restart one and the global teardown still finds it through its state file.
 */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const RESULTS_DIR = path.join(ROOT, "test-results", "api");

const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

export const EVENT_SITE_HOST = "events.demo.test";

// ---------------------------------------------------------------------------------------------
// Keys

export type KeySpec = {
  credits: number;
  qps: number;
  /** Revoked before the server starts. */
  revoked?: boolean;
  /** Issued with `scripts/keys.ts create` itself (the others in one batch through the same calls). */
  viaKeysCli?: boolean;
  /** Only these operation ids (`--operations`); all when absent. */
  operations?: readonly string[];
  /** Only from these addresses and ranges (`--allowed-addresses`); any when absent. */
  allowedAddresses?: readonly string[];
};

/** Every key the suite uses, one group per test file; the global setup issues them all. */
export const KEY_PLAN = {
  // contract.test.ts
  contract: { credits: 100_000, qps: 1000 },
  contractBurst: { credits: 1000, qps: 2 },
  contractRateFirst: { credits: 1000, qps: 1 },
  contractOneCredit: { credits: 1, qps: 100 },
  contractNoCredits: { credits: 0, qps: 100 },
  contractRevoked: { credits: 1000, qps: 100, revoked: true },
  // bad-input.test.ts
  badInput: { credits: 1000, qps: 1000 },
  badInputRevoked: { credits: 1000, qps: 1000, revoked: true },
  // concurrency.test.ts: 40 credits are exactly 20 follower pages of 2 credits
  concurrency: { credits: 40, qps: 1000 },
  concurrencyVictim: { credits: 1000, qps: 10_000 },
  concurrencyAttacker: { credits: 10, qps: 1000 },
  // …and its balance polled by many while it spends: 10 follower pages of 2 credits
  concurrencyBalance: { credits: 1000, qps: 10_000 },
  // revocation.test.ts
  revocation: { credits: 100, qps: 100, viaKeysCli: true },
  // front.test.ts
  front: { credits: 100_000, qps: 1000 },
  // ratelimit-headers.test.ts
  rateHeaders: { credits: 1000, qps: 3 },
  // snippets.test.ts
  snippets: { credits: 1000, qps: 100 },
  // mcp.test.ts: 80 credits are exactly 20 event lookups of 4 credits
  mcp: { credits: 10_000, qps: 1000 },
  mcpPoor: { credits: 3, qps: 100 },
  mcpOverspend: { credits: 80, qps: 1000 },
  mcpSameAsV1: { credits: 10_000, qps: 1000 },
  // mcp-inspector.test.ts: its own key, so that its paid call never shows in mcp.test.ts's ledger
  mcpInspector: { credits: 1000, qps: 100 },
  // key-access.test.ts
  accessScoped: { credits: 1000, qps: 1, operations: ["followers"], viaKeysCli: true },
  accessAllowlisted: { credits: 1000, qps: 1000, allowedAddresses: ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7"] },
  accessBoth: { credits: 1000, qps: 1000, operations: ["get_user_publications"], allowedAddresses: ["2001:db8::/32"] },
  // v1-batches.test.ts: a key of no user, made with `keys create` as the README shows, runs batches of its own
  batchOwnerless: { credits: 1000, qps: 50, viaKeysCli: true },
  // clients-typescript.test.ts: 10,000 followers are 400 pages of 2 credits; a 2/s key iterated flat out; 3 credits buy no event (4)
  clientsTs: { credits: 100_000, qps: 1000 },
  clientsTsSlow: { credits: 1000, qps: 2 },
  clientsTsPoor: { credits: 3, qps: 100 },
  // clients-cli.test.ts
  clientsCli: { credits: 100_000, qps: 1000 },
  clientsCliPoor: { credits: 3, qps: 100 },
  // clients-python.test.ts (the Python client's own tests, clients/python/tests)
  clientsPython: { credits: 100_000, qps: 1000 },
  clientsPythonSlow: { credits: 1000, qps: 2 },
  clientsPythonPoor: { credits: 3, qps: 100 },
  // snippets.test.ts: the API page's SDK and Python client snippets, run as written
  clientsSnippets: { credits: 10_000, qps: 100 },
  // request-log.test.ts
  requestLog: { credits: 1000, qps: 100 },
} as const satisfies Record<string, KeySpec>;

export type KeyName = keyof typeof KEY_PLAN;

export type IssuedKey = {
  id: string;
  name: string;
  token: string;
  credits: number;
  qps: number;
  revoked: boolean;
};

// ---------------------------------------------------------------------------------------------
// Targets

export type TargetKind = "pglite" | "postgres";

/**
 * The databases this run of the API suite covers, from API_DATABASES: "pglite" (npm test, the
 * fast lane), "postgres" (npm run test:proofs), unset for both (PostgreSQL when reachable). The
 * shared servers, and the files that start one server per database, follow it.
 */
const parseApiDatabases = (value: string | undefined): readonly TargetKind[] => {
  if (value === undefined || value === "") return ["pglite", "postgres"];
  if (value === "pglite" || value === "postgres") return [value];
  throw new Error(`API_DATABASES is "${value}": pglite, postgres, or unset for both`);
};
export const API_DATABASES: readonly TargetKind[] = parseApiDatabases(process.env.API_DATABASES);

/**
 * Whether this run covers the embedded database. The tests that start servers of their own on it
 * (limits, a data source, a listening address, a kill) and those that need no database run in
 * such a run only, so that the PostgreSQL lane repeats none of them (`describe.runIf`).
 */
export const embeddedInRun = API_DATABASES.includes("pglite");

export type ApiTarget = {
  kind: TargetKind;
  /** Where the tests send requests: http://127.0.0.1:<port>. */
  baseUrl: string;
  port: number;
  /** PUBLIC_URL of the server: the demo data's image URLs are built from it. */
  publicUrl: string;
  /** Temporary directory of this target (data dir, state file); removed by the teardown. */
  runDir: string;
  /** DATA_DIR of the server (the embedded database lives in it for "pglite"). */
  dataDir: string;
  /** JSON file with the pid of the running server's process group. */
  stateFile: string;
  /** stdout + stderr of every server process of this target. */
  logFile: string;
  /** Environment of the server and of the key CLI, on top of the cleaned parent environment. */
  env: Record<string, string>;
  databaseUrl: string | null;
  keys: Record<KeyName, IssuedKey>;
};

/**
 * A server or CLI under test inherits only a few variables from the parent (inheritedEnv);
 * everything the app reads (lib/env.ts) comes from the target.
 */
export const childEnv = (target: ApiTarget): NodeJS.ProcessEnv =>
  // The servers under test are production builds, whatever the suite itself runs as.
  ({ ...inheritedEnv(), NEXT_TELEMETRY_DISABLED: "1", ...target.env, NODE_ENV: "production" });

export { freePort, randomSecret };

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The key CLI (scripts/keys.ts)

export type CliResult = CapturedRun;

export const runKeysCli = (target: ApiTarget, args: readonly string[]): Promise<CliResult> =>
  runTsx(target, ["scripts/keys.ts", ...args]);

/** Runs a TypeScript entry point of this repository with tsx in the target's environment. */
export const runTsx = (target: ApiTarget, args: readonly string[]): Promise<CliResult> =>
  runCaptured(process.execPath, [TSX_CLI, ...args], { cwd: ROOT, env: childEnv(target) });

const cliOrThrow = async (target: ApiTarget, args: readonly string[]): Promise<string> => {
  const result = await runKeysCli(target, args);
  if (result.code !== 0) {
    // stdout may hold a token: only the command and stderr go into the error.
    throw new Error(`keys ${args[0] ?? ""} failed for ${target.kind} (exit ${result.code}): ${result.stderr.trim()}`);
  }
  return result.stdout;
};

type CreatedKeyLine = { id: string; name: string; token: string; credits: number; qps: number };

const isCreatedKeyLine = (value: unknown): value is CreatedKeyLine => {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.id === "string" &&
    typeof record.name === "string" &&
    typeof record.token === "string" &&
    typeof record.credits === "number" &&
    typeof record.qps === "number"
  );
};

export const createKeyWithCli = async (target: ApiTarget, name: string, spec: KeySpec): Promise<IssuedKey> => {
  const stdout = await cliOrThrow(target, [
    "create",
    "--name",
    name,
    "--credits",
    String(spec.credits),
    "--qps",
    String(spec.qps),
    ...(spec.operations ? ["--operations", spec.operations.join(",")] : []),
    ...(spec.allowedAddresses ? ["--allowed-addresses", spec.allowedAddresses.join(",")] : []),
    "--json",
  ]);
  const line = stdout.trim().split("\n").at(-1) ?? "";
  const parsed: unknown = JSON.parse(line);
  if (!isCreatedKeyLine(parsed)) throw new Error(`keys create --json printed an unexpected line for ${name}`);
  return { ...parsed, revoked: false };
};

export const revokeKeyWithCli = async (target: ApiTarget, keyId: string): Promise<void> => {
  await cliOrThrow(target, ["revoke", keyId]);
};

const isIssuedKey = (value: unknown): value is IssuedKey =>
  isCreatedKeyLine(value) && typeof (value as { revoked?: unknown }).revoked === "boolean";

/** Issues keys in one process through the key CLI's own calls (tests/api/issue-keys.ts). */
const issueBatch = async (target: ApiTarget, requests: { name: string; spec: KeySpec }[]): Promise<IssuedKey[]> => {
  const input = requests.map(({ name, spec }) => ({
    name,
    credits: spec.credits,
    qps: spec.qps,
    revoked: spec.revoked ?? false,
    operations: spec.operations ?? null,
    allowedAddresses: spec.allowedAddresses ?? null,
  }));
  const result = await runTsx(target, ["tests/api/issue-keys.ts", JSON.stringify(input)]);
  if (result.code !== 0) throw new Error(`issuing keys failed for ${target.kind} (exit ${result.code}): ${result.stderr.trim()}`);
  const parsed: unknown = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "[]");
  if (!Array.isArray(parsed) || !parsed.every(isIssuedKey) || parsed.length !== requests.length) {
    throw new Error(`issue-keys.ts printed an unexpected answer for ${target.kind}`);
  }
  return parsed;
};

/**
 * Issues the whole KEY_PLAN: the keys marked viaKeysCli with `scripts/keys.ts create` (and
 * `revoke`), the rest in one batch process. The embedded database admits one process at a time,
 * so `parallel` is for PostgreSQL only.
 */
export const issuePlannedKeys = async (target: ApiTarget, parallel: boolean): Promise<Record<KeyName, IssuedKey>> => {
  const names = Object.keys(KEY_PLAN) as KeyName[];
  const plan = names.map((name) => ({ name, spec: KEY_PLAN[name] as KeySpec }));
  const viaCli = plan.filter(({ spec }) => spec.viaKeysCli);
  const batched = plan.filter(({ spec }) => !spec.viaKeysCli);

  const issueWithCli = async ({ name, spec }: { name: KeyName; spec: KeySpec }): Promise<[KeyName, IssuedKey]> => {
    const key = await createKeyWithCli(target, `api-test-${name}`, spec);
    if (!spec.revoked) return [name, key];
    await revokeKeyWithCli(target, key.id);
    return [name, { ...key, revoked: true }];
  };
  const issueBatched = async (): Promise<[KeyName, IssuedKey][]> => {
    const issued = await issueBatch(
      target,
      batched.map(({ name, spec }) => ({ name: `api-test-${name}`, spec })),
    );
    return batched.map(({ name }, index): [KeyName, IssuedKey] => {
      const key = issued[index];
      if (!key) throw new Error(`no key issued for ${name}`);
      return [name, key];
    });
  };

  const entries: [KeyName, IssuedKey][] = [];
  // The first process migrates the empty database; after it, PostgreSQL takes the rest side by side.
  entries.push(...(await issueBatched()));
  if (parallel) entries.push(...(await Promise.all(viaCli.map(issueWithCli))));
  else for (const request of viaCli) entries.push(await issueWithCli(request));
  return Object.fromEntries(entries) as Record<KeyName, IssuedKey>;
};

// ---------------------------------------------------------------------------------------------
// Servers

type ServerState = { pid: number | null };

const readState = (target: ApiTarget): ServerState => {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(target.stateFile, "utf8"));
    if (typeof parsed === "object" && parsed !== null && "pid" in parsed && typeof parsed.pid === "number") {
      return { pid: parsed.pid };
    }
  } catch {
    // no state yet
  }
  return { pid: null };
};

const writeState = (target: ApiTarget, state: ServerState): void => {
  fs.writeFileSync(target.stateFile, JSON.stringify(state));
};

export const serverPid = (target: ApiTarget): number | null => readState(target).pid;

/** How each server this test process started ended, by its pid (tests/api/probes.test.ts reads a SIGTERM's exit code). */
const serverExits = new Map<number, Promise<{ code: number | null; signal: NodeJS.Signals | null }>>();

export const serverExit = (pid: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined => serverExits.get(pid);

export type StartMode =
  /** `tsx scripts/start.ts`: builds when needed, migrates, seeds an empty store, serves. */
  | "start-script"
  /** tests/api/prepare-db.ts (migrate, seed an empty store), then server.ts on the existing build. */
  | "prepare-and-next-start"
  /**
   * server.ts (the process front) on the build that is already there. Restarts in the middle of the suite use it:
   * start.ts would rebuild when another engineer has edited a source since, pulling `.next` out
   * from under the other target's server that is still running.
   */
  | "next-start";

const logTail = (target: ApiTarget, lines = 40): string => {
  try {
    return fs.readFileSync(target.logFile, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
};

const healthy = async (target: ApiTarget): Promise<boolean> => {
  try {
    const response = await fetch(`${target.baseUrl}/api/health`, { signal: AbortSignal.timeout(3000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
};

const BUILD_MARKER = "Building the application";

/**
 * Starts the target's server detached (its own process group, output appended to the log file)
 * and waits for /api/health to answer 200. A first start may build: the deadline moves out
 * once start.ts says it is building.
 */
export const startServer = async (
  target: ApiTarget,
  mode: StartMode,
  timeoutMs = mode === "start-script" ? 180_000 : 60_000,
): Promise<void> => {
  const running = serverPid(target);
  if (running !== null && groupAlive(running)) throw new Error(`${target.kind} server is already running (pid ${running})`);
  fs.appendFileSync(target.logFile, `\n==== ${new Date().toISOString()} ${mode} on port ${target.port}\n`);
  if (mode === "prepare-and-next-start") {
    const prepared = await runTsx(target, ["tests/api/prepare-db.ts"]);
    fs.appendFileSync(target.logFile, prepared.stdout + prepared.stderr);
    if (prepared.code !== 0) throw new Error(`preparing the ${target.kind} database failed:\n${logTail(target)}`);
  }
  const args = mode === "start-script" ? [TSX_CLI, "scripts/start.ts"] : serverArgs(ROOT);
  const logFd = fs.openSync(target.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: childEnv(target),
      detached: true,
      stdio: ["ignore", logFd, logFd],
    });
  } finally {
    fs.closeSync(logFd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn the ${target.kind} server`);
  child.unref();
  writeState(target, { pid });
  serverExits.set(pid, new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal }))));
  let exitCode: number | null = null;
  child.on("exit", (code, signal) => {
    exitCode = code ?? (signal ? 1 : 0);
  });

  const startedAt = Date.now();
  let deadline = startedAt + timeoutMs;
  let buildSeen = false;
  while (Date.now() < deadline) {
    if (exitCode !== null) {
      throw new Error(`${target.kind} server exited with ${exitCode} before it was healthy:\n${logTail(target)}`);
    }
    if (await healthy(target)) return;
    if (!buildSeen && mode === "start-script" && fs.readFileSync(target.logFile, "utf8").includes(BUILD_MARKER)) {
      buildSeen = true;
      deadline = Math.max(deadline, startedAt + 600_000);
    }
    await delay(250);
  }
  await stopServer(target);
  throw new Error(`${target.kind} server was not healthy within ${Math.round((Date.now() - startedAt) / 1000)} s:\n${logTail(target)}`);
};

/** SIGTERM to the server's process group (start.ts and its `next start` child), SIGKILL after 15 s. */
export const stopServer = async (target: ApiTarget): Promise<void> => {
  const pid = serverPid(target);
  if (pid === null) return;
  signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + 15_000;
  while (groupAlive(pid) && Date.now() < deadline) await delay(100);
  if (groupAlive(pid)) {
    signalGroup(pid, "SIGKILL");
    while (groupAlive(pid)) await delay(100);
  }
  writeState(target, { pid: null });
};

/** Synchronous last resort for an interrupted run: kill the group without waiting. */
export const killServerNow = (target: ApiTarget): void => {
  const pid = serverPid(target);
  if (pid !== null) signalGroup(pid, "SIGKILL");
};

/** Another `next build` (someone else's) must finish before start.ts may look at `.next`. */
export const waitForForeignBuild = async (timeoutMs = 600_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    const found = spawnSync("pgrep", ["-f", "next/dist/bin/next build|next build"], { encoding: "utf8" });
    const pids = found.stdout
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && Number(line) !== process.pid);
    if (pids.length === 0) return;
    if (Date.now() > deadline) throw new Error(`a "next build" (pid ${pids.join(", ")}) is still running`);
    if (!announced) {
      console.log(`[api-suite] waiting for a running "next build" (pid ${pids.join(", ")}) to finish…`);
      announced = true;
    }
    await delay(2000);
  }
};

// ---------------------------------------------------------------------------------------------
// Reading the database behind a target

export type UsageRecord = {
  request_id: string;
  key_id: string;
  operation: string;
  status: number;
  credits_charged: number;
  latency_ms: number;
  /** Requests the record stands for: 1, or more for an aggregate of free refusals. */
  requests: number;
  /** Where the request came in: api, console, batch or mcp. */
  channel: string;
};

export type KeyLedger = { creditsRemaining: number; status: string; usage: UsageRecord[] };

const LEDGER_KEY_SQL = "SELECT credits_remaining, status FROM api_keys WHERE id = $1";
const LEDGER_USAGE_SQL =
  "SELECT request_id::text AS request_id, key_id, operation, status, credits_charged, latency_ms, requests, channel FROM usage_events WHERE key_id = $1 ORDER BY id";

type KeyRow = { credits_remaining: number | string; status: string };

const ledgerFrom = (keyRows: KeyRow[], usage: UsageRecord[], keyId: string): KeyLedger => {
  const key = keyRows[0];
  if (!key) throw new Error(`no api_keys row for ${keyId}`);
  return {
    creditsRemaining: Number(key.credits_remaining),
    status: key.status,
    usage: usage.map((row) => ({ ...row, status: Number(row.status), credits_charged: Number(row.credits_charged), requests: Number(row.requests) })),
  };
};

/** Runs `work` while the target's server is stopped (the embedded database allows one process). */
export const withServerStopped = async <T>(target: ApiTarget, work: () => Promise<T>): Promise<T> => {
  await stopServer(target);
  try {
    return await work();
  } finally {
    await startServer(target, "next-start");
  }
};

/**
 * The key's credits and all its usage records, read from the database itself. PostgreSQL is read
 * while the server runs; the embedded database only with the server stopped (it is restarted).
 */
export const readKeyLedger = async (target: ApiTarget, keyId: string): Promise<KeyLedger> => {
  if (target.databaseUrl !== null) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      const keyRows = (await client.query<KeyRow>(LEDGER_KEY_SQL, [keyId])).rows;
      const usage = (await client.query<UsageRecord>(LEDGER_USAGE_SQL, [keyId])).rows;
      return ledgerFrom(keyRows, usage, keyId);
    } finally {
      await client.end();
    }
  }
  return withServerStopped(target, async () => {
    const { openDb } = await import("@/lib/database");
    const db = await openDb({ dataDir: target.dataDir, timeoutMs: 10_000 });
    try {
      const keyRows = await db.query<KeyRow>(LEDGER_KEY_SQL, [keyId]);
      const usage = await db.query<UsageRecord>(LEDGER_USAGE_SQL, [keyId]);
      return ledgerFrom(keyRows, usage, keyId);
    } finally {
      await db.close();
    }
  });
};

/**
 * A key's remaining credits as the server reports them, without spending any: a request that is
 * a 400 (publications without urn) costs nothing and still carries X-Credits-Remaining.
 * It does leave a usage record and take one request of the key's per-second budget.
 */
export const creditsViaApi = async (target: ApiTarget, key: IssuedKey): Promise<number> => {
  const response = await fetch(`${target.baseUrl}/v1/jobsite/get_user_publications`, {
    headers: { Authorization: `Bearer ${key.token}` },
  });
  await response.arrayBuffer();
  const remaining = response.headers.get("x-credits-remaining");
  if (response.status !== 400 || remaining === null) {
    throw new Error(`credit probe answered ${response.status} without X-Credits-Remaining`);
  }
  return Number(remaining);
};

/** Remaining credits from the database (postgres) or from the API (pglite, server kept running). */
export const creditsRemaining = async (target: ApiTarget, key: IssuedKey): Promise<number> => {
  if (target.databaseUrl === null) return creditsViaApi(target, key);
  return (await readKeyLedger(target, key.id)).creditsRemaining;
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL for the "postgres" target

export type PostgresAdmin = { user: string; connect(database?: string): Promise<pg.Client> };

const portOpen = (host: string, port: number, timeoutMs: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });

/** A superuser-ish login on 127.0.0.1:5432 (trust auth), or a reason why there is none. */
export const findPostgres = async (): Promise<PostgresAdmin | { unavailable: string }> => {
  if (!(await portOpen("127.0.0.1", 5432, 1500))) {
    return { unavailable: "127.0.0.1:5432 not reachable" };
  }
  const users = [...new Set([process.env.PGUSER, "postgres", "root"].filter((user): user is string => !!user))];
  const failures: string[] = [];
  for (const user of users) {
    const connect = async (database = "test") => {
      const client = new pg.Client({ host: "127.0.0.1", port: 5432, user, database, connectionTimeoutMillis: 3000 });
      await client.connect();
      return client;
    };
    try {
      const client = await connect();
      await client.end();
      return { user, connect };
    } catch (error) {
      failures.push(`${user}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { unavailable: `127.0.0.1:5432 reachable but no login to database "test" (${failures.join("; ")})` };
};

export const isUnavailable = (value: PostgresAdmin | { unavailable: string }): value is { unavailable: string } =>
  "unavailable" in value;
