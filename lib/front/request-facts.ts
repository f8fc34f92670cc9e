import type http from "node:http";
import type { AnswerFacts } from "@/lib/api/v1-router";

/**
 * What the front knows of one request once it is over: the one record the request log line,
 * the HTTP metrics and the trace are made from (observers in FrontOptions). Never the query
 * string, a header's value or a body: a path, a status, ids the service made.
 */
export type RequestArea = "v1" | "mcp" | "probe" | "metrics" | "console";

export type RequestFacts = {
  area: RequestArea;
  method: string;
  /** The path without its query (inputs travel in the query: they stay out of logs). */
  pathname: string;
  /** The status sent; 499 when the client went away before an answer was written. */
  status: number;
  latencyMs: number;
  /** The X-Request-Id of the answer, when it has one (every /v1 and console lookup answer does). */
  requestId: string | null;
  /** The key that /v1 authenticated; never its token. */
  keyId: string | null;
  /** The registry's operation id (or "account", "openapi", "batches") of a /v1 answer. */
  operation: string | null;
};

export type RequestObserver = (facts: RequestFacts) => void;

/** A path is the client's: long ones are cut, so that a log line or an attribute stays short. */
const MAX_PATH_CHARS = 512;

/** Console routes whose path carries an input (a subject looked up by an admin): that segment is templated. */
const SUBJECT_PATH = /^(\/api\/admin\/subjects\/[^/]+\/)[^/]+/;

/**
 * The path as the request log line (`path`) and the trace span (`url.path`) record it: the same
 * text in both, with a data subject's identifier replaced by `:subject` and a long path cut.
 */
export const recordedPath = (pathname: string): string => {
  const masked = pathname.replace(SUBJECT_PATH, "$1:subject");
  return masked.length > MAX_PATH_CHARS ? `${masked.slice(0, MAX_PATH_CHARS)}…` : masked;
};

export const PROBE_PATHS: readonly string[] = ["/livez", "/readyz"];
export const METRICS_PATH = "/metrics";

export const areaOf = (pathname: string, v1: boolean, mcpPath: string | undefined): RequestArea => {
  if (v1) return "v1";
  if (mcpPath !== undefined && pathname === mcpPath) return "mcp";
  if (PROBE_PATHS.includes(pathname)) return "probe";
  if (pathname === METRICS_PATH) return "metrics";
  return "console";
};

const headerText = (value: number | string | string[] | undefined): string | null =>
  typeof value === "string" ? value : Array.isArray(value) ? (value[0] ?? null) : null;

/** The X-Request-Id among writeHead's headers: an object, or a flat list of names and values. */
const requestIdIn = (headers: unknown): string | null => {
  if (Array.isArray(headers)) {
    const index = headers.findIndex((item) => typeof item === "string" && item.toLowerCase() === "x-request-id");
    return index === -1 ? null : headerText(headers[index + 1] as string | undefined);
  }
  if (typeof headers !== "object" || headers === null) return null;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === "x-request-id") return headerText(value as string | string[] | undefined);
  }
  return null;
};

/**
 * What the writer of an answer hands over: its key and operation, and the X-Request-Id it sends
 * (node:http keeps no copy of headers given straight to writeHead, so getHeader cannot see it).
 */
export type HandedFacts = AnswerFacts & { requestId?: string | null };

/**
 * Calls `observers` once, when the response is finished or its connection closed first. The
 * facts of a /v1 answer are handed over by `answerFacts` before the answer is written.
 */
export const observeRequest = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
  base: { area: RequestArea; pathname: string },
  observers: readonly RequestObserver[],
): { setAnswerFacts: (facts: HandedFacts) => void } => {
  const startedPerf = performance.now();
  let answerFacts: HandedFacts = { keyId: null, operation: null };
  // Headers handed to writeHead alone (no setHeader before) are not readable with getHeader
  // afterwards: the request id is read as the head is written.
  let writtenRequestId: string | null = null;
  const writeHead = response.writeHead;
  response.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    writtenRequestId ??= args.map(requestIdIn).find((id) => id !== null) ?? null;
    return (writeHead as (...rest: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof response.writeHead;
  response.once("close", () => {
    const facts: RequestFacts = {
      ...base,
      method: request.method ?? "GET",
      status: response.writableFinished || response.headersSent ? response.statusCode : 499,
      latencyMs: performance.now() - startedPerf,
      requestId: answerFacts.requestId ?? headerText(response.getHeader("x-request-id")) ?? writtenRequestId,
      keyId: answerFacts.keyId,
      operation: answerFacts.operation,
    };
    for (const observe of observers) observe(facts);
  });
  return { setAnswerFacts: (facts) => (answerFacts = facts) };
};
