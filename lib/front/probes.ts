import type http from "node:http";
import type { Readiness } from "@/lib/readiness";
import { bearerMatches } from "./bearer";

/**
 * The probes a balancer or an orchestrator asks, answered by the front before Next and outside
 * any sign-in (docs/monitoring.md "Probes and shutdown"): GET /livez, "the process answers" (no
 * database, so a slow database never gets a live process restarted); GET /readyz, "send me
 * traffic", 200 when every check passes or 503 naming the failing ones. HEAD answers the same
 * without a body. Never cached: a stale 200 would keep traffic on a draining instance.
 *
 * Anyone may ask, so anyone gets the status and the names of failing checks only. Each check's
 * detail (migration count, latencies, the embedded worker's and Redis's state) describes the
 * deployment: it is for the operator's monitoring token (METRICS_TOKEN as a Bearer token), on
 * the metrics listener (lib/front/metrics-endpoint.ts), and on Admin → System.
 */
export const LIVEZ_PATH = "/livez";
export const READYZ_PATH = "/readyz";

export type Probes = {
  readiness: () => Promise<Readiness>;
  /** Whether this request is shown each check's detail; absent: never. */
  showDetails?: (request: http.IncomingMessage) => boolean;
};

/** Details for a request that sends `token` as a Bearer token; none to anyone without a token configured. */
export const detailsWithToken = (token: string | undefined): ((request: http.IncomingMessage) => boolean) | undefined =>
  token === undefined ? undefined : (request) => bearerMatches(request.headers.authorization, token);

export const isProbePath = (pathname: string): boolean => pathname === LIVEZ_PATH || pathname === READYZ_PATH;

const json = (request: http.IncomingMessage, response: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
  const body = Buffer.from(JSON.stringify(value));
  response.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(body.length),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  });
  response.end(request.method === "HEAD" ? undefined : body);
};

const readyzBody = (state: Readiness, details: boolean) => {
  const summary = {
    status: state.ready ? "ok" : "unavailable",
    failing: state.checks.filter((check) => !check.ok).map((check) => check.name),
  };
  if (!details) return summary;
  return { ...summary, checks: Object.fromEntries(state.checks.map(({ name, ok, detail }) => [name, { ok, detail }])) };
};

/** Answers a request for LIVEZ_PATH or READYZ_PATH (isProbePath). */
export const answerProbe = async (request: http.IncomingMessage, response: http.ServerResponse, pathname: string, probes: Probes): Promise<void> => {
  if (request.method !== "GET" && request.method !== "HEAD") {
    json(request, response, 405, { status: "error", message: "Use GET or HEAD" }, { Allow: "GET, HEAD" });
    return;
  }
  if (pathname === LIVEZ_PATH) {
    json(request, response, 200, { status: "ok" });
    return;
  }
  const state = await probes.readiness();
  json(request, response, state.ready ? 200 : 503, readyzBody(state, probes.showDetails?.(request) === true));
};
