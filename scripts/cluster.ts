import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";
import { serverArgs } from "./server-process";
import { groupAlive, signalGroup } from "@/lib/cli/processes";
import { parseCliOptions } from "@/lib/cli/options";

/**
 * `npm run start:cluster -- --instances 3 [--port 4000]`: several production instances of this
 * repository on one PostgreSQL (DATABASE_URL) and one Redis (REDIS_URL), on consecutive ports
 * PORT+1 … PORT+N, behind a small round-robin HTTP proxy on PORT — for local trials of the
 * multi-instance mode. Production puts a real load balancer (nginx, HAProxy, a cloud LB) in front
 * of the instances instead of this proxy.
 *
 * The proxy and the instance launcher are exported: the scale suite (tests/scale) and
 * `npm run bench:scale` run the same pieces.
 */

// ---------------------------------------------------------------------------------------------
// The round-robin proxy

export type Upstream = { host: string; port: number };

export type RoundRobinProxy = {
  server: http.Server;
  /** Requests the proxy could not place on any instance (answered 502). */
  failures(): number;
  /** Why the last of them failed (at most 20): the instance's port and the error code. */
  failureReasons(): string[];
  /** Per instance, in the order given: whether its last readiness probe passed (all true without `readiness`). */
  ready(): boolean[];
  close(): Promise<void>;
};

/**
 * Active health checks, as a real balancer does them (docs/scale.md "The load balancer"): each
 * instance's `path` (GET /readyz) is asked every `intervalMs` on a connection of its own; an
 * instance whose last answer was not 200 (or that did not answer within `timeoutMs`) is sent no
 * new request. When no instance is ready every one is tried: better a refusal than a 502 from here.
 */
export type ReadinessProbing = { path: string; intervalMs: number; timeoutMs: number };

/** Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const endToEnd = (headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders => {
  const kept: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
};

/**
 * Next's internal request headers, which no client of a public API has a reason to send. On /v1,
 * `RSC` makes Next answer a 307 and `X-Middleware-Prefetch` a bare 200 `{}` before any route
 * handler runs (the scale suite's fuzz test shows both); `X-Middleware-Subrequest` is the
 * middleware-bypass header of CVE-2025-29927, dropped everywhere. The console's own navigation
 * uses the router headers, so they are dropped on /v1 only. A production load balancer should do
 * the same.
 */
const DROPPED_EVERYWHERE = ["x-middleware-subrequest"];
const DROPPED_ON_API = [
  "rsc",
  "next-router-prefetch",
  "next-router-segment-prefetch",
  "next-router-state-tree",
  "next-url",
  "next-action",
  "x-middleware-prefetch",
  "x-nextjs-data",
];

const isApiPath = (url: string | undefined): boolean => url === "/v1" || /^\/v1[/?#]/.test(url ?? "");

/** The request's headers as an instance should see them: Host kept, the client appended to X-Forwarded-For. */
const forwardedHeaders = (request: http.IncomingMessage): http.OutgoingHttpHeaders => {
  const headers = endToEnd(request.headers);
  for (const name of [...DROPPED_EVERYWHERE, ...(isApiPath(request.url) ? DROPPED_ON_API : [])]) delete headers[name];
  const client = request.socket.remoteAddress ?? "unknown";
  const previous = request.headers["x-forwarded-for"];
  headers["x-forwarded-for"] = previous ? `${String(previous)}, ${client}` : client;
  headers["x-forwarded-proto"] ??= "http";
  return headers;
};

/** Errors meaning the instance never took the request: safe to place it on the next one. */
const NEVER_CONNECTED = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

const badGateway = (response: http.ServerResponse): void => {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = "Bad gateway: no instance answered\n";
  response.writeHead(502, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(body) });
  response.end(body);
};

/**
 * A streaming round-robin proxy: each request goes to the next instance; an instance that refuses
 * the connection is skipped (the request goes to the one after it). A request is never retried
 * once an instance has taken it — a lookup is charged, so a replay could charge twice.
 */
export const createRoundRobinProxy = (
  upstreams: readonly Upstream[],
  options: { maxSockets?: number; readiness?: ReadinessProbing } = {},
): RoundRobinProxy => {
  if (upstreams.length === 0) throw new Error("the proxy needs at least one instance");
  // Idle sockets are dropped before Node's default 5 s server keep-alive timeout closes them under us.
  // A stopping instance answers `Connection: close`, so no request is written onto a socket it is closing.
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256, timeout: 4000 });
  let turn = 0;
  let failed = 0;
  const reasons: string[] = [];
  const fail = (reason: string) => {
    failed += 1;
    reasons.push(reason);
    if (reasons.length > 20) reasons.shift();
  };
  const probing = options.readiness === undefined ? null : startReadinessProbes(upstreams, options.readiness);

  /** The instances to try, from the one whose turn it is: the ready ones first, then the others. */
  const order = (first: number): Upstream[] => {
    const rotated = upstreams.map((_, offset) => (first + offset) % upstreams.length);
    const ready = probing?.ready() ?? upstreams.map(() => true);
    return [...rotated.filter((index) => ready[index]), ...rotated.filter((index) => !ready[index])].flatMap((index) => {
      const upstream = upstreams[index];
      return upstream ? [upstream] : [];
    });
  };

  const place = (request: http.IncomingMessage, response: http.ServerResponse, candidates: readonly Upstream[], tried: number): void => {
    const upstream = candidates[tried];
    if (!upstream) {
      fail("no instance took the connection");
      badGateway(response);
      return;
    }
    const outgoing = http.request({
      host: upstream.host,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: forwardedHeaders(request),
      agent,
    });
    let taken = false;
    outgoing.on("socket", (socket) => {
      const forward = () => {
        taken = true;
        request.pipe(outgoing);
      };
      if (socket.connecting) socket.once("connect", forward);
      else forward();
    });
    outgoing.on("response", (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      answer.pipe(response);
      answer.on("error", () => response.destroy());
      answer.on("aborted", () => response.destroy());
    });
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      if (!taken && NEVER_CONNECTED.has(error.code ?? "")) {
        place(request, response, candidates, tried + 1);
        return;
      }
      fail(`${upstream.port} ${error.code ?? error.message}${taken ? " after connecting" : ""}${outgoing.reusedSocket ? " (reused connection)" : ""}`);
      badGateway(response);
    });
    response.on("close", () => {
      if (!response.writableFinished) outgoing.destroy();
    });
  };

  const server = http.createServer((request, response) => {
    const first = turn;
    turn = (turn + 1) % upstreams.length;
    place(request, response, order(first), 0);
  });
  server.keepAliveTimeout = 10_000;

  return {
    server,
    failures: () => failed,
    failureReasons: () => [...reasons],
    ready: () => probing?.ready() ?? upstreams.map(() => true),
    close: () =>
      new Promise<void>((resolve) => {
        probing?.stop();
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
};

/** Asks each instance's readiness path in turn, never two probes of one instance at once; until its first answer an instance counts as ready. */
const startReadinessProbes = (upstreams: readonly Upstream[], probing: ReadinessProbing) => {
  const ready = upstreams.map(() => true);
  const inFlight = upstreams.map(() => false);
  const probe = (index: number) => {
    const upstream = upstreams[index];
    if (!upstream || inFlight[index]) return;
    inFlight[index] = true;
    const settle = (isReady: boolean) => {
      if (!inFlight[index]) return;
      inFlight[index] = false;
      ready[index] = isReady;
    };
    // A connection of its own (agent: false): a probe never waits behind traffic or reuses a closing socket.
    const request = http.get({ host: upstream.host, port: upstream.port, path: probing.path, agent: false, timeout: probing.timeoutMs }, (answer) => {
      answer.resume();
      answer.on("end", () => settle(answer.statusCode === 200));
      answer.on("error", () => settle(false));
    });
    request.on("timeout", () => {
      settle(false);
      request.destroy();
    });
    request.on("error", () => settle(false));
  };
  const timer = setInterval(() => upstreams.forEach((_, index) => probe(index)), probing.intervalMs);
  timer.unref();
  upstreams.forEach((_, index) => probe(index));
  return { ready: () => [...ready], stop: () => clearInterval(timer) };
};

export const listen = (server: http.Server, port: number, host = "127.0.0.1"): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

// ---------------------------------------------------------------------------------------------
// Instances

const root = process.cwd();

/**
 * One production instance (server.ts, the process front, on PORT) in its own process group, so that a signal to
 * the group reaches every process of it. `env` is the complete environment of the instance;
 * `appDir` is this repository or a build snapshot of it (snapshotBuild).
 */
export const spawnInstance = (options: {
  port: number;
  env: NodeJS.ProcessEnv;
  appDir?: string;
  /** A function receives every output line; an fd (a log file) receives the raw output. */
  output: ((line: string) => void) | { fd: number };
}): ChildProcess => {
  const appDir = options.appDir ?? root;
  const stdio: ["ignore", "pipe" | number, "pipe" | number] =
    typeof options.output === "function" ? ["ignore", "pipe", "pipe"] : ["ignore", options.output.fd, options.output.fd];
  const child = spawn(process.execPath, serverArgs(appDir), {
    cwd: appDir,
    env: { ...options.env, NODE_ENV: "production", PORT: String(options.port) },
    detached: true,
    stdio,
  });
  const sink = options.output;
  if (typeof sink === "function") {
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) readline.createInterface({ input: stream }).on("line", sink);
    }
  }
  return child;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls /api/health until it answers 200; false when `timeoutMs` passed or the process exited. */
export const waitHealthy = async (baseUrl: string, timeoutMs: number, child?: ChildProcess): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) return false;
    try {
      const response = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(3000) });
      await response.arrayBuffer();
      if (response.status === 200) return true;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  return false;
};

/** SIGTERM to the instance's group, SIGKILL after `graceMs`; resolves once the group is gone. */
export const stopInstance = async (groupId: number, graceMs = 10_000): Promise<void> => {
  signalGroup(groupId, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (groupAlive(groupId) && Date.now() < deadline) await sleep(100);
  if (!groupAlive(groupId)) return;
  signalGroup(groupId, "SIGKILL");
  const killDeadline = Date.now() + 5000;
  while (groupAlive(groupId) && Date.now() < killDeadline) await sleep(50);
};

/** pids of `next build` processes running now (anyone's): `.next` must not be read while one writes it. */
export const runningBuilds = (): number[] => {
  const found = spawnSync("pgrep", ["-f", "next build"], { encoding: "utf8" });
  if (found.error) return [];
  return found.stdout
    .split("\n")
    .map((line) => Number.parseInt(line, 10))
    .filter((pid) => Number.isInteger(pid) && pid !== process.pid);
};

export const waitForForeignBuilds = async (say: (message: string) => void, timeoutMs = 15 * 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (let pids = runningBuilds(); pids.length > 0; pids = runningBuilds()) {
    if (Date.now() > deadline) throw new Error(`a "next build" (pid ${pids.join(", ")}) is still running`);
    if (!announced) say(`waiting for a running "next build" (pid ${pids.join(", ")}) to finish…`);
    announced = true;
    await sleep(2000);
  }
};

/**
 * What server.ts reads besides `.next` and public/: itself, the config, and lib/ (the front and
 * the /v1 pipeline run from source through tsx; the SQL files beside them are read at runtime).
 */
const SNAPSHOT_FILES = ["package.json", "tsconfig.json", "next.config.ts", "server.ts"];
const SNAPSHOT_SKIP = new Set(["cache", "dev"]);

/**
 * A private copy of the production build (about 30 MB: `.next` without its caches, the config,
 * server.ts, lib/, public/) with node_modules linked, from which server.ts serves. Suites and benchmarks that
 * run for minutes use it so that a `next build` someone else starts in the repository meanwhile
 * cannot pull the build out from under their instances. Returns the BUILD_ID copied.
 */
export const snapshotBuild = async (repository: string, into: string, say: (message: string) => void): Promise<string> => {
  const buildIdOf = (dir: string): string => fs.readFileSync(path.join(dir, ".next", "BUILD_ID"), "utf8").trim();
  const copy = (): string => {
    const before = buildIdOf(repository);
    fs.rmSync(into, { recursive: true, force: true });
    fs.mkdirSync(path.join(into, "lib"), { recursive: true });
    fs.cpSync(path.join(repository, ".next"), path.join(into, ".next"), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => !SNAPSHOT_SKIP.has(path.relative(path.join(repository, ".next"), source)),
    });
    for (const file of SNAPSHOT_FILES) fs.copyFileSync(path.join(repository, file), path.join(into, file));
    fs.cpSync(path.join(repository, "lib"), path.join(into, "lib"), { recursive: true, filter: (source) => !source.endsWith(".test.ts") });
    fs.cpSync(path.join(repository, "public"), path.join(into, "public"), { recursive: true });
    fs.symlinkSync(path.join(repository, "node_modules"), path.join(into, "node_modules"), "dir");
    if (runningBuilds().length > 0 || buildIdOf(repository) !== before || buildIdOf(into) !== before) {
      throw new Error("the build changed while it was being copied");
    }
    return before;
  };
  for (let attempt = 1; ; attempt += 1) {
    await waitForForeignBuilds(say);
    try {
      return copy();
    } catch (error) {
      if (attempt >= 5) throw new Error(`could not copy the build: ${error instanceof Error ? error.message : String(error)}`);
      await sleep(2000);
    }
  }
};

// ---------------------------------------------------------------------------------------------
// The command

const USAGE = `usage: npm run start:cluster -- [--instances N] [--port PORT]
       npm run start:cluster -- --upstreams HOST:PORT,HOST:PORT,… [--port PORT]
  --instances N   production instances to start (default 3), on ports PORT+1 … PORT+N
  --port PORT     where the round-robin proxy listens (default 4000)
  --upstreams …   only the proxy, in front of instances started otherwise (no database needed)
Needs DATABASE_URL (PostgreSQL) and REDIS_URL: the instances share credits, usage, keys and
sessions through PostgreSQL, and rate limits and key revocations through Redis.`;

/** The proxy's health checks of its instances, as docs/scale.md advises a real balancer's. */
const CLUSTER_PROBE: ReadinessProbing = { path: "/readyz", intervalMs: 1000, timeoutMs: 2000 };

class UsageError extends Error {}
/** The environment cannot run a cluster: said in one message, exit 1. */
class ConfigError extends Error {}

type Options = { instances: number; port: number; upstreams: Upstream[] | null };

const parseUpstreams = (text: string): Upstream[] =>
  text.split(",").map((item) => {
    const match = /^(.+):(\d{1,5})$/.exec(item.trim());
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65535) throw new UsageError(`--upstreams: "${item}" is not HOST:PORT\n${USAGE}`);
    return { host: match[1], port };
  });

const readOptions = (): Options => {
  const values = parseCliOptions(
    USAGE,
    { instances: { type: "string", default: "3" }, port: { type: "string", default: "4000" }, upstreams: { type: "string" } },
    (message) => new UsageError(message),
  );
  const instances = Number(values.instances);
  const port = Number(values.port);
  if (!Number.isInteger(instances) || instances < 1 || instances > 32) throw new UsageError(`--instances must be 1-32\n${USAGE}`);
  if (!Number.isInteger(port) || port < 1 || port + instances > 65535) throw new UsageError(`--port must leave room for ${instances} ports above it\n${USAGE}`);
  return { instances, port, upstreams: values.upstreams === undefined ? null : parseUpstreams(values.upstreams) };
};

/** `--upstreams`: the proxy alone (benchmarks run it in a process of its own, away from the load generator). */
const proxyOnly = async (upstreams: Upstream[], port: number): Promise<void> => {
  const proxy = createRoundRobinProxy(upstreams);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => void proxy.close().then(() => process.exit(0)));
  }
  await listen(proxy.server, port, "0.0.0.0");
  console.log(`Round-robin proxy on http://localhost:${port} → ${upstreams.map(({ host, port: upstreamPort }) => `${host}:${upstreamPort}`).join(", ")}`);
};

const main = async (): Promise<void> => {
  const { instances: instanceCount, port: proxyPort, upstreams } = readOptions();
  if (upstreams !== null) return proxyOnly(upstreams, proxyPort);
  const { env, EnvError } = await import("@/lib/env");
  let config: ReturnType<typeof env>;
  try {
    config = env();
  } catch (error) {
    if (error instanceof EnvError) throw new ConfigError(error.message);
    throw error;
  }
  const missing = [config.DATABASE_URL ? null : "DATABASE_URL", config.REDIS_URL ? null : "REDIS_URL"].filter(
    (name): name is string => name !== null,
  );
  if (missing.length > 0) {
    throw new ConfigError(
      `start:cluster needs ${missing.join(" and ")}.\n` +
        "Several instances share state only through PostgreSQL (DATABASE_URL=postgres://…: credits, usage, keys, sessions)\n" +
        "and Redis (REDIS_URL=redis://…: rate limits, key revocations); the embedded database admits one process.\n" +
        "Example: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 npm run start:cluster -- --instances 3",
    );
  }

  const { authSecret } = await import("@/lib/security/secrets");
  const { ensureBuild } = await import("@/lib/cli/build");
  const { openDb } = await import("@/lib/database");
  const { seedIfEmpty } = await import("@/lib/demo/seed");
  const { bootstrapAdmin } = await import("@/lib/users/bootstrap");

  const publicUrl = config.PUBLIC_URL ?? `http://localhost:${proxyPort}`;
  // Every instance must sign and check keys with the same secret: without AUTH_SECRET they all
  // read the one generated into the shared DATA_DIR (created here, once, before they start).
  authSecret();
  if (!config.AUTH_SECRET) {
    console.log(`AUTH_SECRET is not set: the instances share ${path.join(config.dataDir, "auth-secret")} (on several machines, set AUTH_SECRET on each).`);
  }

  await waitForForeignBuilds((message) => console.log(message));
  ensureBuild(root);

  // Migrate, seed and create the first administrator once, before any instance starts.
  const db = await openDb({ dataDir: config.dataDir, databaseUrl: config.DATABASE_URL, timeoutMs: config.DB_TIMEOUT_MS });
  try {
    if (await seedIfEmpty(db, publicUrl)) console.log("Loaded the demo data set into the empty database.");
    const admin = await bootstrapAdmin(db, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD, dataDir: config.dataDir });
    if (admin.kind === "generated") {
      console.log(`Created ${admin.email} with password ${admin.password} (shown once; also in ${admin.file}).`);
    }
  } finally {
    await db.close();
  }

  const ports = Array.from({ length: instanceCount }, (_, index) => proxyPort + 1 + index);
  let stopping = false;
  const children = ports.map((port, index) => {
    const label = `[app-${index + 1}:${port}]`;
    const child = spawnInstance({
      port,
      // One proxy (this one) appends the client to X-Forwarded-For in front of each instance.
      // Each instance's output is piped through this terminal: pretty lines when it is one, named per
      // instance. Stopping, an instance keeps serving for two of the proxy's probe intervals and more.
      env: {
        TRUSTED_PROXY_HOPS: "1",
        LOG_FORMAT: process.stdout.isTTY ? "pretty" : "json",
        INSTANCE_ID: `app-${index + 1}`,
        SHUTDOWN_DRAIN_DELAY_MS: String(3 * CLUSTER_PROBE.intervalMs),
        ...process.env,
        PUBLIC_URL: publicUrl,
      },
      output: (line) => console.log(`${label} ${line}`),
    });
    child.on("exit", (code, signal) => {
      if (!stopping) console.error(`${label} exited (${signal ?? `code ${code ?? "?"}`}); the proxy skips it while it refuses connections`);
    });
    return child;
  });

  const proxy = createRoundRobinProxy(
    ports.map((port) => ({ host: "127.0.0.1", port })),
    { readiness: CLUSTER_PROBE },
  );
  const stopAll = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping the proxy and the instances…");
    await proxy.close().catch(() => undefined);
    await Promise.all(children.map((child) => (child.pid === undefined ? undefined : stopInstance(child.pid))));
    process.exit(exitCode);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stopAll(0));
  process.on("exit", () => {
    for (const child of children) if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
  });

  const healthy = await Promise.all(
    ports.map((port, index) => waitHealthy(`http://127.0.0.1:${port}`, 120_000, children[index])),
  );
  if (!healthy.every(Boolean)) {
    console.error("error: not every instance became healthy (see its output above)");
    await stopAll(1);
    return;
  }
  await listen(proxy.server, proxyPort, "0.0.0.0");
  console.log(`\nSocial Lookup cluster: ${instanceCount} instance${instanceCount === 1 ? "" : "s"} on PostgreSQL and Redis`);
  console.log(`  Round-robin proxy (local trials only; production uses a real load balancer): http://localhost:${proxyPort}`);
  ports.forEach((port, index) => console.log(`  app-${index + 1}: http://localhost:${port}`));
  console.log(`  Public URL: ${publicUrl}   Console: ${publicUrl}/signin   OpenAPI: ${publicUrl}/v1/openapi.json`);
  console.log("  Keys: npm run --silent keys -- create --name NAME --credits 1000 (works alongside the running instances)");
  console.log("  Ctrl-C stops the proxy and every instance.");
};

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;

if (invokedDirectly) {
  main().catch((error: unknown) => {
    if (error instanceof UsageError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
