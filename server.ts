import http from "node:http";
import next from "next";
import { createV1Router } from "@/lib/api/v1-router";
import { wakeBatchRunner } from "@/lib/batches/start";
import { closeDb, getDb } from "@/lib/database";
import { env, EnvError } from "@/lib/env";
import { limitConnections, serverTimeouts, type ConnectionLimits } from "@/lib/front/connections";
import { answerHalfClosedRequests, createFront, MAX_HEADER_BYTES } from "@/lib/front/front";
import { hostPort, listenOnHost } from "@/lib/front/listen";
import { pagePolicy, securityHeaders, transportSecurityHeaders } from "@/lib/http/security-headers";
import { createMcpHandler, MCP_PATH } from "@/lib/mcp/http";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { registry } from "@/lib/operations";
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
const SHUTDOWN_GRACE_MS = 10_000;

const main = async (): Promise<void> => {
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
  const front = createFront({
    router,
    next: (request, response) => nextHandler(request, response),
    trustedProxyHops: config.TRUSTED_PROXY_HOPS,
    cors: { allowedOrigins: config.CORS_ALLOWED_ORIGINS },
    encodings: ["gzip"],
    baseHeaders: Object.fromEntries(securityHeaders(dev).map(({ key, value }) => [key, value])),
    nextPolicy: () => pagePolicy(dev),
    everyAnswerHeaders: Object.fromEntries(transportSecurityHeaders(config.PUBLIC_URL).map(({ key, value }) => [key, value])),
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
  // One server per listening address (HOST=localhost, the default: 127.0.0.1 and ::1), alike.
  const createServer = (): http.Server => {
    const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, ...serverTimeouts(limits) }, (request, response) => {
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
  for (const { address, reason } of skipped) console.log(`> Not listening on ${address} (${reason}: no such address on this machine)`);
  console.log(`> Ready on http://${hostPort(config.HOST, config.PORT)} (${dev ? "development" : "production"}; listening on ${addresses.join(" and ")})`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`> ${signal}: finishing requests in flight, then stopping`);
    // In-flight requests finish (each lookup settles its charge before it answers); idle
    // keep-alive connections are closed so close() can complete.
    // Then the embedded database closes on its thread and its lock file is removed.
    const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    void Promise.all(closed).then(() => Promise.allSettled([closeDb(), stopTracing()]).finally(() => process.exit(0)));
    for (const server of servers) server.closeIdleConnections();
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
};

main().catch((error: unknown) => {
  console.error(`error: ${error instanceof EnvError || error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
