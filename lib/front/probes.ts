import type http from "node:http";
import type { Readiness } from "@/lib/readiness";

/**
 * The probes a balancer or an orchestrator asks, answered by the front before Next and outside
 * any sign-in (docs/monitoring.md "Probes and shutdown"): GET /livez, "the process answers" (no
 * database, so a slow database never gets a live process restarted); GET /readyz, "send me
 * traffic", 200 with every check or 503 naming the failing ones. HEAD answers the same without
 * a body. Never cached: a stale 200 would keep traffic on a draining instance.
 */
export const LIVEZ_PATH = "/livez";
export const READYZ_PATH = "/readyz";

export type Probes = { readiness: () => Promise<Readiness> };

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

const readyzBody = (state: Readiness) => ({
  status: state.ready ? "ok" : "unavailable",
  failing: state.checks.filter((check) => !check.ok).map((check) => check.name),
  checks: Object.fromEntries(state.checks.map(({ name, ok, detail }) => [name, { ok, detail }])),
});

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
  json(request, response, state.ready ? 200 : 503, readyzBody(state));
};
