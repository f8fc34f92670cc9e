import { log as processLog, type Log, type LogLevel } from "@/lib/log";
import { recordedPath, type RequestArea, type RequestFacts, type RequestObserver } from "./request-facts";

/**
 * The request log: one line when a request is over, from the facts the front hands its observers
 * (lib/front/request-facts.ts). What it holds: the request id, the channel, the operation, the
 * status, the latency, the key id (never the token), the method and the path as the trace span
 * has it too (recordedPath: no query, where inputs travel; a subject in a console path
 * templated). Probes, metrics scrapes, the health report and Next's static files are at debug,
 * so that a load balancer's or a browser's polling does not drown the rest.
 */
export type RequestChannel = "api" | "mcp" | "console" | "probe" | "metrics";

const CHANNEL_OF: Record<RequestArea, RequestChannel> = { v1: "api", mcp: "mcp", console: "console", probe: "probe", metrics: "metrics" };

const isStaticAsset = (pathname: string): boolean => pathname.startsWith("/_next/") || pathname === "/favicon.ico";

/** The console's health report: what `npm start`, the tests and older load balancer settings poll. */
const HEALTH_PATH = "/api/health";

/** debug for what polls; warn for a 5xx (the failure itself is an error line with the same requestId); info otherwise. */
export const requestLevel = (channel: RequestChannel, facts: RequestFacts): LogLevel => {
  if (channel === "probe" || channel === "metrics") return "debug";
  if (facts.status >= 500) return "warn";
  if (isStaticAsset(facts.pathname) || facts.pathname === HEALTH_PATH) return "debug";
  return "info";
};

export const requestLogObserver = (target: Log = processLog): RequestObserver => (facts) => {
  const channel = CHANNEL_OF[facts.area];
  target[requestLevel(channel, facts)]("request", {
    requestId: facts.requestId,
    channel,
    operation: facts.operation,
    status: facts.status,
    latencyMs: Math.round(facts.latencyMs * 10) / 10,
    keyId: facts.keyId,
    method: facts.method,
    path: recordedPath(facts.pathname),
  });
};
