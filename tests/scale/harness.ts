import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import pg from "pg";
import { runCaptured, type CapturedRun } from "@/lib/cli/processes";
import { afterAll, beforeAll, inject } from "vitest";

/**
 * What the scale suite's test files share: the cluster the global setup started (three
 * production instances on PostgreSQL and the suite's own Redis), requests to its instances,
 * the fault controls, and reads of the database behind it.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export type ScaleInstance = { index: number; port: number; baseUrl: string };

export type ScaleCluster = {
  instances: ScaleInstance[];
  /** The round-robin proxy of scripts/cluster.ts in front of the instances. */
  proxyUrl: string;
  /** The global setup's control server: fault injection and instance restarts. */
  controlUrl: string;
  /** PostgreSQL directly (ledger reads, key issuance). The instances go through the cuttable TCP proxy. */
  databaseUrl: string;
  redisUrl: string;
  authSecret: string;
  admin: { email: string; password: string };
  dbTimeoutMs: number;
  /** Environment of a CLI run against the cluster's database (scripts/keys.ts). */
  cliEnv: Record<string, string>;
};

/** The cluster, or null when the global setup skipped the suite (the reason is in scaleSkipped). */
const clusterOrNull = (): ScaleCluster | null => inject("scaleCluster");

export const skipped = (): boolean => clusterOrNull() === null;

export const cluster = (): ScaleCluster => {
  const value = clusterOrNull();
  if (value === null) throw new Error(`the scale suite is skipped: ${inject("scaleSkipped") ?? "no cluster"}`);
  return value;
};

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Requests

export const OPERATION_PATHS = {
  event_details: "/v1/eventsite/event_details",
  event_details_id: "/v1/eventsite/event_details_id",
  followers: "/v1/pinsite/followers",
  get_user_publications: "/v1/jobsite/get_user_publications",
} as const;

export type OperationName = keyof typeof OPERATION_PATHS;

export const FOLLOWERS = `${OPERATION_PATHS.followers}?userid=2000000002`;

export type Answer = {
  /** 0 when no answer came (connection failed or timed out: see `error`). */
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: unknown;
  latencyMs: number;
  error: string | null;
};

const agents = new Map<number, http.Agent>();

/** One keep-alive agent per port: fuzzing opens no connection per request. */
const agentFor = (port: number): http.Agent => {
  let agent = agents.get(port);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4000 });
    agents.set(port, agent);
  }
  return agent;
};

export const closeAgents = (): void => {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The body as sent before compression (a fuzzed Accept-Encoding may ask for any). */
const decode = (body: Buffer, encoding: string | undefined): Buffer => {
  try {
    if (encoding === "gzip" || encoding === "x-gzip") return zlib.gunzipSync(body);
    if (encoding === "br") return zlib.brotliDecompressSync(body);
    if (encoding === "deflate") return zlib.inflateSync(body);
  } catch {
    return Buffer.from(`(undecodable ${encoding} body)`);
  }
  return body;
};

/**
 * GET `rawPath` (sent byte for byte, no normalisation) to an instance. Never rejects: a failed or
 * timed-out request is an Answer with status 0.
 */
export const send = (
  port: number,
  rawPath: string,
  options: { headers?: http.OutgoingHttpHeaders; timeoutMs?: number; method?: string; body?: string } = {},
): Promise<Answer> =>
  new Promise((resolve) => {
    const startedAt = performance.now();
    let settled = false;
    const finish = (answer: Omit<Answer, "latencyMs">) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, latencyMs: performance.now() - startedAt });
    };
    const request = http.request(
      { host: "127.0.0.1", port, path: rawPath, method: options.method ?? "GET", headers: options.headers, agent: agentFor(port) },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = decode(Buffer.concat(chunks), response.headers["content-encoding"]).toString("utf8");
          finish({ status: response.statusCode ?? 0, headers: response.headers, text, body: parseJson(text), error: null });
        });
        response.on("error", (error) => finish({ status: 0, headers: {}, text: "", body: undefined, error: error.message }));
        response.on("aborted", () => finish({ status: 0, headers: {}, text: "", body: undefined, error: "aborted" }));
      },
    );
    request.on("error", (error) => finish({ status: 0, headers: {}, text: "", body: undefined, error: error.message }));
    if (options.timeoutMs !== undefined) {
      request.setTimeout(options.timeoutMs, () => {
        finish({ status: 0, headers: {}, text: "", body: undefined, error: `no answer within ${options.timeoutMs} ms` });
        request.destroy();
      });
    }
    request.end(options.body);
  });

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/** The request's instance when they are taken in turn. */
export const instanceFor = (sequence: number): ScaleInstance => {
  const { instances } = cluster();
  const instance = instances[sequence % instances.length];
  if (!instance) throw new Error("the cluster has no instances");
  return instance;
};

export const header = (answer: Answer, name: string): string | null => {
  const value = answer.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
};

export const chargedCredits = (answer: Answer): number => Number(header(answer, "x-credits-charged") ?? "0");

export const message = (answer: Answer): string | null => {
  const body = answer.body;
  if (typeof body !== "object" || body === null || !("message" in body)) return null;
  return typeof body.message === "string" ? body.message : null;
};

/** Answers by status, e.g. { 200: 100, 402: 200 }. */
export const countStatuses = (answers: readonly Answer[]): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
};

/** Runs `work` over `items` with at most `concurrency` at once, keeping the order of results. */
export const mapConcurrent = async <Item, Result>(
  items: readonly Item[],
  concurrency: number,
  work: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> => {
  const results: Result[] = new Array<Result>(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      const item = items[index] as Item;
      results[index] = await work(item, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
};

// ---------------------------------------------------------------------------------------------
// Fault controls (served by the global setup, which owns every process of the cluster)

export type ClusterStatus = {
  /** Per instance: whether the test balancer's last /readyz probe of it passed. */
  balancerReady: boolean[];
  /** Requests the balancer answered 502 (no instance took them). */
  balancerFailures: number;
  balancerFailureReasons: string[];
  pgCut: boolean;
  redisPid: number | null;
  instances: { index: number; port: number; pid: number | null }[];
};

const controlCall = async (method: "GET" | "POST", action: string): Promise<unknown> => {
  const response = await fetch(`${cluster().controlUrl}/${action}`, { method, signal: AbortSignal.timeout(180_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`control ${action} failed (${response.status}): ${text}`);
  return text === "" ? null : JSON.parse(text);
};

export const control = {
  cutPostgres: () => controlCall("POST", "pg/cut"),
  restorePostgres: () => controlCall("POST", "pg/restore"),
  killRedis: () => controlCall("POST", "redis/kill"),
  startRedis: () => controlCall("POST", "redis/start"),
  /** Resolves once the process is gone, with when the signal went (wall clock), null when it was not running. */
  killInstance: async (index: number): Promise<{ signalledAtEpochMs: number | null }> =>
    (await controlCall("POST", `instances/${index}/kill`)) as { signalledAtEpochMs: number | null },
  startInstance: (index: number) => controlCall("POST", `instances/${index}/start`),
  /** SIGTERM, as an orchestrator stops an instance; resolves once it has exited, with its exit code. */
  terminateInstance: async (index: number): Promise<{ exitCode: number | null; signal: string | null; stoppedInMs: number }> =>
    (await controlCall("POST", `instances/${index}/terminate`)) as { exitCode: number | null; signal: string | null; stoppedInMs: number },
  /** Only this instance's network to PostgreSQL goes silent (or heals): its requests wait on the database. */
  cutInstancePostgres: (index: number) => controlCall("POST", `instances/${index}/pg-cut`),
  restoreInstancePostgres: (index: number) => controlCall("POST", `instances/${index}/pg-restore`),
  status: async (): Promise<ClusterStatus> => (await controlCall("GET", "status")) as ClusterStatus,
};

type Health = { status: string; database: string; redis: string };

export const health = async (instance: ScaleInstance): Promise<Health | null> => {
  const answer = await send(instance.port, "/api/health", { timeoutMs: 3000 });
  const body = answer.body;
  if (typeof body !== "object" || body === null) return null;
  const record = body as Record<string, unknown>;
  return { status: String(record.status), database: String(record.database), redis: String(record.redis) };
};

/**
 * Every test file starts from a whole cluster: PostgreSQL connected, the suite's Redis running and
 * seen by every instance, every instance up. Repairs what an earlier file left broken.
 */
export const ensureWholeCluster = async (timeoutMs = 120_000): Promise<void> => {
  const status = await control.status();
  if (status.pgCut) await control.restorePostgres();
  if (status.redisPid === null) await control.startRedis();
  for (const instance of status.instances) if (instance.pid === null) await control.startInstance(instance.index);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reports = await Promise.all(cluster().instances.map(health));
    if (reports.every((report) => report?.status === "ok" && report.redis === "ok")) return;
    if (Date.now() > deadline) throw new Error(`the cluster is not whole: ${JSON.stringify(reports)}`);
    await delay(200);
  }
};

// ---------------------------------------------------------------------------------------------
// The database behind the cluster

let pool: pg.Pool | null = null;

export const database = (): pg.Pool => {
  pool ??= new pg.Pool({ connectionString: cluster().databaseUrl, max: 4 });
  return pool;
};

export const closeDatabase = async (): Promise<void> => {
  const open = pool;
  pool = null;
  if (open) await open.end();
};

/**
 * The hooks of a suite that drives the whole cluster: it starts whole, and at the end the
 * suite's agents and database pool are closed. A suite that breaks the cluster (kills an
 * instance or Redis, cuts PostgreSQL) passes `repairAfter`, so the next file starts whole too.
 */
export const useWholeCluster = ({ repairAfter = false }: { repairAfter?: boolean } = {}): void => {
  beforeAll(() => ensureWholeCluster());
  afterAll(async () => {
    if (repairAfter) await ensureWholeCluster();
    closeAgents();
    await closeDatabase();
  });
};

export type IssuedKey = { id: string; token: string; credits: number; qps: number };

/** Issues a key through the key repository itself (what `keys create` does), straight into the database. */
export const issueKey = async (name: string, spec: { credits: number; qps: number }): Promise<IssuedKey> => {
  const { createKey } = await import("@/lib/keys/repository");
  const db = { query: async <Row>(text: string, params?: unknown[]) => (await database().query(text, params)).rows as Row[] };
  const { key, token } = await createKey(db, cluster().authSecret, {
    name,
    ownerId: null,
    credits: spec.credits,
    qpsLimit: spec.qps,
    expiresAt: null,
  });
  return { id: key.id, token, credits: spec.credits, qps: spec.qps };
};

/**
 * A team workspace (docs/teams.md) whose pool holds `pool` credits, straight into the database, and
 * `keys` keys of it that draw from the pool; `workspaceQps`: the limit its keys share.
 */
export const issuePooledKeys = async (
  name: string,
  spec: { pool: number; keys: number; qps: number; workspaceQps?: number },
): Promise<{ workspaceId: string; keys: IssuedKey[] }> => {
  const { createKey } = await import("@/lib/keys/repository");
  const db = { query: async <Row>(text: string, params?: unknown[]) => (await database().query(text, params)).rows as Row[] };
  const suffix = crypto.randomUUID().slice(0, 8);
  const [owner] = await db.query<{ id: string }>(
    "INSERT INTO users (id, email, name, role) VALUES ($1, $2, $3, 'analyst') RETURNING id",
    [`usr_${name}_${suffix}`, `${name}-${suffix}@example.test`, name],
  );
  const workspaceId = `wst_${name}_${suffix}`;
  await db.query("INSERT INTO workspaces (id, name, pool_credits, pool_granted, qps_limit) VALUES ($1, $2, $3, $3, $4)", [
    workspaceId,
    name,
    spec.pool,
    spec.workspaceQps ?? null,
  ]);
  await db.query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [workspaceId, owner!.id]);
  const keys: IssuedKey[] = [];
  for (let index = 0; index < spec.keys; index += 1) {
    const { key, token } = await createKey(db, cluster().authSecret, {
      name: `${name}-${index}`,
      ownerId: owner!.id,
      credits: 0,
      qpsLimit: spec.qps,
      expiresAt: null,
      workspaceId,
    });
    keys.push({ id: key.id, token, credits: 0, qps: spec.qps });
  }
  return { workspaceId, keys };
};

/** A workspace's pool now. */
export const readPool = async (workspaceId: string): Promise<number> =>
  Number((await database().query("SELECT pool_credits::int AS c FROM workspaces WHERE id = $1", [workspaceId])).rows[0]?.c);

/** requests: how many requests the record stands for (more than 1 for an aggregate of free refusals). */
export type UsageRow = { request_id: string; status: number; credits_charged: number; requests: number };

export type Ledger = {
  creditsRemaining: number;
  creditsGranted: number;
  status: string;
  usage: UsageRow[];
};

export const readLedger = async (keyId: string): Promise<Ledger> => {
  const keys = await database().query<{ credits_remaining: string | number; credits_granted: string | number; status: string }>(
    "SELECT credits_remaining, credits_granted, status FROM api_keys WHERE id = $1",
    [keyId],
  );
  const key = keys.rows[0];
  if (!key) throw new Error(`no key ${keyId}`);
  const usage = await database().query<{ request_id: string; status: number; credits_charged: number; requests: number }>(
    "SELECT request_id::text AS request_id, status, credits_charged, requests FROM usage_events WHERE key_id = $1 ORDER BY id",
    [keyId],
  );
  return {
    creditsRemaining: Number(key.credits_remaining),
    creditsGranted: Number(key.credits_granted),
    status: key.status,
    usage: usage.rows.map((row) => ({ ...row, status: Number(row.status), credits_charged: Number(row.credits_charged), requests: Number(row.requests) })),
  };
};

/** Requests the records stand for (an aggregate of free refusals counts its requests). */
export const sumRequests = (usage: readonly UsageRow[], where: (row: UsageRow) => boolean = () => true): number =>
  usage.filter(where).reduce((sum, row) => sum + row.requests, 0);

export const sumCharged = (usage: readonly UsageRow[], where: (row: UsageRow) => boolean = () => true): number =>
  usage.filter(where).reduce((sum, row) => sum + row.credits_charged, 0);

// ---------------------------------------------------------------------------------------------
// The key CLI against the cluster's database

const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

export const runKeysCli = (args: readonly string[]): Promise<CapturedRun> =>
  runCaptured(process.execPath, [TSX_CLI, "scripts/keys.ts", ...args], { cwd: ROOT, env: { ...cluster().cliEnv, NODE_ENV: "production" } });
