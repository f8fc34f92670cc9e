import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { collectProcessMetrics, exposition, metrics } from "@/lib/metrics/registry";
import { readiness } from "@/lib/readiness";
import { METRICS_PATH, type RequestFacts, type RequestObserver } from "./request-facts";
import { plain } from "./plain-answer";
import { bearerMatches } from "./bearer";
import { answerProbe, detailsWithToken, isProbePath } from "./probes";

/**
 * GET /metrics, the Prometheus scrape (docs/monitoring.md "Metrics"). Never open by default:
 * on the main port only with METRICS_TOKEN set and sent as `Authorization: Bearer <token>`
 * (without it the path is an unknown page, 404); on a listener of its own when METRICS_PORT is
 * set (on METRICS_HOST, loopback unless said otherwise), asking for the token too when one is set.
 * With METRICS=off neither exists. That listener answers /livez and /readyz too, /readyz with
 * each check's detail (with the token when one is set), as the main port does only for the token.
 */
export type MetricsHandler = (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>;

/** Every answer of the scrape endpoint, refusals too, is never cached. */
const NO_STORE = { "Cache-Control": "no-store" };


/** The `ready` gauge is read at scrape time, so a scrape says what /readyz would say now. */
const scrape = async (response: http.ServerResponse, head: boolean): Promise<void> => {
  const ready = await readiness().then(
    (answer) => answer.ready,
    () => false,
  );
  metrics().ready.set(ready ? 1 : 0);
  const { contentType, body } = await exposition();
  const bytes = Buffer.from(body);
  response.writeHead(200, { "Content-Type": contentType, "Content-Length": String(bytes.length), "Cache-Control": "no-store" });
  response.end(head ? undefined : bytes);
};

/** Answers GET /metrics (the caller decided the path is /metrics); `token`: required when set. */
export const metricsHandler =
  (token: string | undefined): MetricsHandler =>
  async (request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      plain(response, 405, "Method Not Allowed", { ...NO_STORE, Allow: "GET, HEAD" });
      return;
    }
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
      plain(response, 401, "Unauthorized: send Authorization: Bearer <METRICS_TOKEN>", { ...NO_STORE, "WWW-Authenticate": 'Bearer realm="metrics"' });
      return;
    }
    try {
      await scrape(response, request.method === "HEAD");
    } catch (error) {
      log.error("metrics scrape failed", { error: describeError(error) });
      if (response.headersSent) response.destroy();
      else plain(response, 500, "Internal Server Error", { ...NO_STORE });
    }
  };

/** The main port's /metrics: only with metrics on and a token configured; otherwise none (404 as any unknown page). */
export const mainPortMetrics = (config: Pick<Env, "METRICS" | "METRICS_TOKEN">): MetricsHandler | undefined =>
  config.METRICS === "on" && config.METRICS_TOKEN !== undefined ? metricsHandler(config.METRICS_TOKEN) : undefined;

/**
 * The METRICS_PORT listener: /metrics, and the probes with /readyz's details (for the token when
 * one is set, for any caller when none is: the operator chose who reaches this port). Nothing
 * else. Resolves once it listens; null when not configured.
 */
export const startMetricsListener = async (
  config: Pick<Env, "METRICS" | "METRICS_PORT" | "METRICS_HOST" | "METRICS_TOKEN">,
): Promise<http.Server | null> => {
  if (config.METRICS !== "on" || config.METRICS_PORT === undefined) return null;
  const handle = metricsHandler(config.METRICS_TOKEN);
  const probes = { readiness, showDetails: detailsWithToken(config.METRICS_TOKEN) ?? (() => true) };
  const server = http.createServer((request, response) => {
    const pathname = (request.url ?? "/").split("?")[0] ?? "/";
    if (pathname === METRICS_PATH) void handle(request, response);
    else if (isProbePath(pathname)) void answerProbe(request, response, pathname, probes);
    else plain(response, 404, "Not Found", { ...NO_STORE });
  });
  // A scrape must never keep the process up once the main listeners are closed.
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.METRICS_PORT, config.METRICS_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
};

const packageVersion = (): string => {
  try {
    const text = fs.readFileSync(path.join(process.cwd(), "package.json"), "utf8");
    const parsed: unknown = JSON.parse(text);
    const version = typeof parsed === "object" && parsed !== null && "version" in parsed ? parsed.version : undefined;
    return typeof version === "string" ? version : "unknown";
  } catch {
    return "unknown";
  }
};

/** At start: Node.js's own metrics (event loop lag, heap, GC) and build_info{version,node}. */
export const startProcessMetrics = (): void => {
  collectProcessMetrics();
  metrics().buildInfo.set({ version: packageVersion(), node: process.version }, 1);
};

const statusClass = (status: number): string => (status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : "other");

const httpRequestsByLabels = new Map<string, () => void>();

/** http_requests_total{area,status_class}: every request the front answered (a 499 counts as 4xx). */
export const httpMetricsObserver: RequestObserver = (facts: RequestFacts) => {
  const statusLabel = statusClass(facts.status);
  const key = `${facts.area} ${statusLabel}`;
  let count = httpRequestsByLabels.get(key);
  if (count === undefined) {
    const child = metrics().httpRequests.labels({ area: facts.area, status_class: statusLabel });
    count = () => child.inc();
    httpRequestsByLabels.set(key, count);
  }
  count();
};

/** The front's observers this part adds: none with METRICS=off (no cost per request then). */
export const metricsObservers = (config: Pick<Env, "METRICS">): RequestObserver[] => (config.METRICS === "on" ? [httpMetricsObserver] : []);
