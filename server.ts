import http from "node:http";
import next from "next";
import { createV1Router } from "@/lib/api/v1-router";
import { wakeBatchRunner } from "@/lib/batches/start";
import { startOperatorSocket } from "@/lib/cli/operator/server";
import { closeDb, getDb } from "@/lib/database";
import { env, EnvError } from "@/lib/env";
import { limitConnections, serverTimeouts, type ConnectionLimits } from "@/lib/front/connections";
import { answerHalfClosedRequests, createFront, MAX_HEADER_BYTES } from "@/lib/front/front";
import { hostPort, listenOnHost } from "@/lib/front/listen";
import { createAnswerTracker, shutDown } from "@/lib/front/shutdown";
import { mainPortMetrics, metricsObservers, startMetricsListener, startProcessMetrics } from "@/lib/front/metrics-endpoint";
import { detailsWithToken } from "@/lib/front/probes";
import { requestLogObserver } from "@/lib/front/request-log";
import { pagePolicy, securityHeaders, transportSecurityHeaders } from "@/lib/http/security-headers";
import { log, routeConsoleToLog } from "@/lib/log";
import { createMcpHandler, MCP_PATH } from "@/lib/mcp/http";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { stopBackgroundJobs } from "@/lib/jobs";
import { registry } from "@/lib/operations";
import { readiness, startDraining } from "@/lib/readiness";
import { services } from "@/lib/services";
import { startTracing, stopTracing } from "@/lib/tracing/start";

/**
 * The process: a node:http front that answers /v1 itself (lib/front, lib/api/v1-router) and
 * hands every other request to Next through its custom-server API. One process, so the console's
 * route handlers and /v1 share one pipeline, one rate limiter and one embedded database
 * (lib/services and lib/db keep them on globalThis; lib/db/lock.ts keeps other processes out).
 *
 * `tsx server.ts` with NODE_ENV=production serves the `next build` output; without it, Next's
 * development server.
 */
const main = async (): Promise<void> => {
  // Next's and its libraries' console lines become log lines too: one format on stdout.
  routeConsoleToLog();
  const config = env();
  // Before Next and the front: the batch runner (started by Next's instrumentation) traces too.
  await startTracing();
  const dev = config.NODE_ENV !== "production";
  const app = next({ dev, hostname: config.HOST, port: config.PORT });
  const nextHandler = app.getRequestHandler();
  await app.prepare();

  const router = createV1Router(registry, {
    services,
    openApiDocument: () => buildOpenApiDocument(registry),
    batches: { db: getDb, publicUrl: config.publicUrl, wake: wakeBatchRunner },
  });
  startProcessMetrics();
  const front = createFront({
    router,
    metrics: mainPortMetrics(config),
    observers: [requestLogObserver(), ...metricsObservers(config)],
    next: (request, response) => nextHandler(request, response),
    trustedProxyHops: config.TRUSTED_PROXY_HOPS,
    cors: { allowedOrigins: config.CORS_ALLOWED_ORIGINS },
    encodings: ["gzip"],
    baseHeaders: Object.fromEntries(securityHeaders(dev).map(({ key, value }) => [key, value])),
    nextPolicy: () => pagePolicy(dev),
    everyAnswerHeaders: Object.fromEntries(transportSecurityHeaders(config.PUBLIC_URL).map(({ key, value }) => [key, value])),
    probes: { readiness, showDetails: detailsWithToken(config.METRICS_TOKEN) },
    mcp: { path: MCP_PATH, handle: createMcpHandler({
        registry,
        services,
        allowedOrigins: config.CORS_ALLOWED_ORIGINS,
        batches: { db: getDb, publicUrl: config.publicUrl, wake: wakeBatchRunner },
      }) },
  });

  const limits: ConnectionLimits = {
    headersTimeoutMs: config.HEADERS_TIMEOUT_S * 1000,
    requestTimeoutMs: config.REQUEST_TIMEOUT_S * 1000,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_S * 1000,
    maxConnections: config.MAX_CONNECTIONS,
    maxPerAddress: config.TRUSTED_PROXY_HOPS === 0 ? config.MAX_CONNECTIONS_PER_ADDRESS : null,
  };
  // The embedded database admits this process only: operator CLIs send their commands here (lib/cli/operator).
  const operatorSocket = config.DATABASE_URL === undefined ? await startOperatorSocket({ dataDir: config.dataDir, withDb: async (work) => work(await getDb()) }) : null;

  // Once stopping, answers close their connections (lib/front/shutdown.ts).
  const answers = createAnswerTracker();
  // One server per listening address (HOST=localhost, the default: 127.0.0.1 and ::1), alike.
  const createServer = (): http.Server => {
    const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, ...serverTimeouts(limits) }, (request, response) => {
      answers.track(response);
      void front.handleRequest(request, response);
    });
    limitConnections(server, limits);
    answerHalfClosedRequests(server);
    server.on("connect", front.handleConnect);
    // Next's development server reloads pages over a WebSocket.
    if (dev) server.on("upgrade", app.getUpgradeHandler());
    return server;
  };
  const { servers, addresses, skipped } = await listenOnHost(createServer, config.HOST, config.PORT);
  for (const { address, reason } of skipped) log.info(`Not listening on ${address} (${reason}: no such address on this machine)`, { address });
  const metricsListener = await startMetricsListener(config);
  if (metricsListener !== null) log.info(`Metrics on http://${hostPort(config.METRICS_HOST, config.METRICS_PORT ?? 0)}/metrics`);
  // The URL to open: tests and people read it from this line (the `url` field in JSON).
  const url = `http://${hostPort(config.HOST, config.PORT)}`;
  const mode = dev ? "development" : "production";
  log.info(`Ready on ${url} (${mode}; listening on ${addresses.join(" and ")})`, { url, mode, addresses: addresses.join(" ") });

  // Every server this process listens on: shutdown closes each of them.
  const listeners: http.Server[] = [...servers, ...(metricsListener === null ? [] : [metricsListener])];

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: not ready from now on; finishing requests in flight, then stopping`, { signal });
    void shutDown({
      // A balancer is told by /readyz; a person pressing Ctrl-C wants it to stop now.
      drainDelayMs: signal === "SIGTERM" ? config.SHUTDOWN_DRAIN_DELAY_MS : 0,
      timeoutMs: config.SHUTDOWN_TIMEOUT_S * 1000,
      listeners,
      answers,
      startDraining,
      // Operator commands in progress finish like requests in flight.
      stopBackgroundJobs: async () => {
        await Promise.all([stopBackgroundJobs(), operatorSocket?.close()]);
      },
      drainSettler: async () => (await services()).settler.drain(),
      // The embedded database closes on its thread and its lock file is removed; the last spans are sent.
      closeDatabase: async () => {
        await Promise.all([closeDb(), stopTracing().catch(() => undefined)]);
      },
    }).then(
      (outcome) => {
        if (outcome === "forced") log.warn("stopped before everything in flight had finished (see the shutdown warnings above)");
        process.exit(outcome === "clean" ? 0 : 1);
      },
      (error: unknown) => {
        log.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`, { err: error });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
};

main().catch((error: unknown) => {
  // A bad setting is the operator's to fix: its sentence, no stack. Anything else with its stack.
  if (error instanceof EnvError) log.error(`error: ${error.message}`);
  else log.error(`error: the server did not start: ${error instanceof Error ? error.message : String(error)}`, { err: error });
  process.exit(1);
});
