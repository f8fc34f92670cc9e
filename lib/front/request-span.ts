import type http from "node:http";
import { ATTR } from "@/lib/tracing/attributes";
import { startRequestSpan } from "@/lib/tracing/spans";
import { batchRoute, BATCHES_PATH } from "@/lib/api/v1-batches";
import { METRICS_PATH, PROBE_PATHS, recordedPath, type RequestArea, type RequestFacts, type RequestObserver } from "./request-facts";

/**
 * The trace span of one request (traces on): started when the request arrives — continuing a
 * caller's W3C traceparent — active while the front and Next handle it, so its statements and
 * provider calls are its children, and ended with the request's facts when the response closes.
 *
 * Named by route, never by a raw path with ids or inputs: a /v1 lookup by its registry path
 * ("GET /v1/pinsite/followers"), a batch by its route ("GET /v1/batches/{id}/results"), the
 * console by what it is ("GET /api/*", "GET /_next/*", "GET (page)"); the probes and /metrics
 * have none. Its attributes are the
 * method, the path as the request log has it (no query, a subject's identifier templated:
 * recordedPath), the status, and the ids the service made: request id
 * (the answer's X-Request-Id), operation, channel, key id.
 */
const METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]);

/** The conventions' bounded method: a client could send any token there. */
const methodOf = (method: string): string => (METHODS.has(method) ? method : "_OTHER");

const CHANNELS: Record<RequestArea, string> = { v1: "api", mcp: "mcp", probe: "probe", metrics: "metrics", console: "console" };

const withoutTrailingSlash = (pathname: string): string => (pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname);

/** A /v1 path as its route: the registry's and the fixed paths as they are, batches with {id}. */
const v1Route = (facts: RequestFacts): string => {
  const path = withoutTrailingSlash(facts.pathname);
  if (facts.operation === null) return "/v1/*";
  if (facts.operation !== "batches") return path;
  const route = batchRoute(path);
  switch (route?.kind) {
    case "collection":
      return BATCHES_PATH;
    case "batch":
      return `${BATCHES_PATH}/{id}`;
    case "results":
      return `${BATCHES_PATH}/{id}/results`;
    case "action":
      return `${BATCHES_PATH}/{id}/${route.action}`;
    default:
      return "/v1/*";
  }
};

const consoleRoute = (pathname: string): string => {
  if (pathname.startsWith("/_next/")) return "/_next/*";
  if (pathname.startsWith("/api/auth/")) return "/api/auth/*";
  if (pathname.startsWith("/api/")) return "/api/*";
  return "(page)";
};

/** The route a request's span is named by (and its http.route when it is a route proper). */
export const requestRoute = (facts: RequestFacts): { route: string; exact: boolean } => {
  switch (facts.area) {
    case "v1":
      return { route: v1Route(facts), exact: true };
    case "console":
      return { route: consoleRoute(facts.pathname), exact: false };
    default:
      // The MCP endpoint (and the probes and /metrics, were they traced) are fixed paths.
      return { route: facts.pathname, exact: true };
  }
};

export const requestSpanAttributes = (facts: RequestFacts, route: { route: string; exact: boolean }) => ({
  [ATTR.urlPath]: recordedPath(facts.pathname),
  [ATTR.httpRoute]: route.exact ? route.route : null,
  [ATTR.httpResponseStatusCode]: facts.status,
  [ATTR.requestId]: facts.requestId,
  [ATTR.operation]: facts.operation,
  [ATTR.channel]: CHANNELS[facts.area],
  [ATTR.keyId]: facts.keyId,
});

/**
 * Runs `handle` inside the request's span (traces on) or as it is (off). `handle` is given the
 * observers to tell of the request: the front's own, plus the one that ends the span.
 */
export const traceRequest = (
  request: http.IncomingMessage,
  observers: readonly RequestObserver[] | undefined,
  handle: (observers: readonly RequestObserver[] | undefined) => Promise<void>,
): Promise<void> => {
  // A balancer's probes and a scraper's polls, every few seconds, would each make a trace of their own.
  const path = (request.url ?? "/").split("?", 1)[0] ?? "/";
  if (PROBE_PATHS.includes(path) || path === METRICS_PATH) return handle(observers);
  const method = methodOf(request.method ?? "GET");
  const span = startRequestSpan(method, request.headers);
  if (span === null) return handle(observers);
  const endSpan: RequestObserver = (facts) => {
    const route = requestRoute(facts);
    span.end(`${method} ${route.route}`, requestSpanAttributes(facts, route), facts.status >= 500 ? String(facts.status) : null);
  };
  return span.run(() => handle([...(observers ?? []), endSpan]));
};
