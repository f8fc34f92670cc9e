import type http from "node:http";
import type { Duplex } from "node:stream";
import { AUTH_ROUTES_PREFIX, withoutMalformedCallbackCookie, withoutMalformedCallbackUrl } from "@/lib/auth/callback-url";
import { CLIENT_ADDRESS_HEADER, clientIp } from "@/lib/auth/client-ip";
import type { V1Answer, V1Resource, V1Router } from "@/lib/api/v1-router";
import { log } from "@/lib/log";
import { BATCH_BODY_MAX_BYTES } from "@/lib/api/v1-batches";
import { DomainError } from "@/lib/errors";
import { clientAddress } from "./client-address";
import { compress, MIN_COMPRESSED_BYTES, negotiateEncoding, type Encoding } from "./compression";
import { corsHeaders, isPreflight, preflightHeaders, type CorsPolicy } from "./cors";
import { hasMalformedEscapes, isV1Path, readRequestTarget } from "./request-target";
import { answerProbe, isProbePath, type Probes } from "./probes";
import { areaOf, METRICS_PATH, observeRequest, type HandedFacts, type RequestObserver } from "./request-facts";
import { traceRequest } from "./request-span";
import { plain } from "./plain-answer";

/**
 * The process front: one node:http request listener. It owns the socket, so it is where the
 * client address is decided (and handed to the app in CLIENT_ADDRESS_HEADER, replacing any
 * client-sent copy). /v1 is answered here from the registry's router — envelope, CORS,
 * compression — without entering Next; everything else goes to Next's request handler.
 */
export type NextHandler = (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>;

export type FrontOptions = {
  router: V1Router;
  next: NextHandler;
  trustedProxyHops: number;
  cors: CorsPolicy;
  /** Encodings offered for /v1 answers over 1 KB, best first. */
  encodings: readonly Encoding[];
  /** Headers every /v1 answer carries (Next adds the same to its answers, bar the policy's nonce). */
  baseHeaders: Readonly<Record<string, string>>;
  /** A Content-Security-Policy with a fresh script nonce, made for each request handed to Next. */
  nextPolicy: () => string;
  /** Headers every answer carries, /v1 and Next's alike, decided at run time (HSTS). */
  everyAnswerHeaders?: Readonly<Record<string, string>>;
  /** The MCP server (lib/mcp), answered here beside /v1. */
  mcp?: { path: string; handle: NextHandler };
  /** Told of every request once it is over (the request log, the HTTP metrics). */
  observers?: readonly RequestObserver[];
  /** GET /metrics on this port (lib/front/metrics-endpoint.ts); absent: an unknown page like any other. */
  metrics?: NextHandler;
  /** GET /livez and /readyz (lib/front/probes.ts), answered before Next and any sign-in. */
  probes?: Probes;
};

/**
 * Written by the proxies the operator runs; a client connecting directly could write anything
 * there (another host for next-auth's links, https for a plain connection). With no trusted
 * proxy they are removed, and Next sets them from the connection (Host, the socket's protocol).
 */
const FORWARDED_HEADERS = ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"] as const;

/**
 * Next reads a page's script nonce from the request's Content-Security-Policy (falling back to
 * the report-only one) and sets it on every script it renders; the browser is sent the same
 * policy. A client's copies are replaced: the nonce must be ours, fresh for each request.
 */
const handOverPolicy = (request: http.IncomingMessage, response: http.ServerResponse, policy: string): void => {
  delete request.headers["content-security-policy-report-only"];
  request.headers["content-security-policy"] = policy;
  response.setHeader("Content-Security-Policy", policy);
};

/** The front's own trivial answer (the benchmark's ceiling of the front): no database, no Next. */
export const FRONT_PING_PATH = "/_front/ping";

/** The largest request head node:http accepts: request line + headers. Larger: 431, plain. */
export const MAX_HEADER_BYTES = 16 * 1024;

const ALL_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";


const nothing = (): void => undefined;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The request body as text, refused past `maxBytes` (the rest is not read) with the /v1 contract's 413 sentence. */
const readBody = (request: http.IncomingMessage, maxBytes: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.removeAllListeners("data");
        request.resume();
        reject(new DomainError("body_too_large", `Request body too large (at most ${maxBytes / 1024 / 1024} MiB)`));
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });

/** A results file as it is read: chunk by chunk, stopping when the client goes away. */
const sendStream = async (response: http.ServerResponse, status: number, headers: Record<string, string>, chunks: AsyncGenerator<string>) => {
  response.writeHead(status, headers);
  try {
    for await (const chunk of chunks) {
      if (response.destroyed) break;
      if (!response.write(chunk)) await new Promise<void>((resolve) => {
        response.once("drain", resolve);
        response.once("close", resolve);
      });
    }
  } catch (error) {
    log.error("results stream failed", { err: error });
    response.destroy();
    return;
  } finally {
    await chunks.return(undefined);
  }
  response.end();
};

/** The operation a /v1 answer outside the registry's lookups stands for, in the request log. */
const resourceOperation = (resource: V1Resource): string | null =>
  resource === "account" || resource === "openapi" || resource === "batches" ? resource : null;

const mergeVary = (...values: (string | undefined)[]): string | undefined => {
  const names = values.flatMap((value) => (value ? value.split(",").map((name) => name.trim()) : [])).filter(Boolean);
  return names.length === 0 ? undefined : [...new Set(names)].join(", ");
};

/**
 * `unwritten` runs when the answer did not reach the client: the response closed before all of it
 * was handed to the socket, or the client had ended its side (a half-close looks the same as a
 * reset until the answer is written: see answerHalfClosedRequests) and the socket then failed
 * (ECONNRESET/EPIPE) instead of closing cleanly after the answer. Otherwise `written` runs.
 */
const onUnwritten = (response: http.ServerResponse, unwritten: () => void, written: () => void): void => {
  const socket = response.socket;
  if (response.destroyed || socket === null) {
    unwritten();
    return;
  }
  response.once("close", () => {
    if (!response.writableFinished) unwritten();
    else if (!socket.readableEnded) written();
    else if (socket.destroyed) {
      if (socket.errored) unwritten();
      else written();
    } else {
      socket.once("close", (hadError) => {
        if (hadError) unwritten();
        else written();
      });
    }
  });
};

/**
 * A client may half-close its side once its request is sent (HTTP/1.1 allows it; a shell pipe
 * that closes stdin does it). node:http would then abort the request and end the socket before
 * the answer is written; with httpAllowHalfOpen it answers and closes after that answer.
 * (A public property of http.Server that @types/node does not declare.)
 */
export const answerHalfClosedRequests = (server: http.Server): void => {
  Object.assign(server, { httpAllowHalfOpen: true });
};

export const createFront = (options: FrontOptions) => {
  const { router, cors } = options;
  // The OpenAPI document is the same bytes until a deploy: compress each encoding once.
  const compressedOnce = new Map<string, Promise<Buffer>>();

  const encode = (answer: V1Answer, body: Buffer, encoding: Encoding): Promise<Buffer> => {
    if (answer.resource !== "openapi") return compress(body, encoding);
    const key = `${answer.headers.ETag ?? ""} ${encoding}`;
    let cached = compressedOnce.get(key);
    if (cached === undefined) {
      cached = compress(body, encoding);
      compressedOnce.set(key, cached);
    }
    return cached;
  };

  const send = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    answer: V1Answer,
    sendOptions: { cors: boolean } = { cors: true },
  ): Promise<void> => {
    const origin = single(request.headers.origin);
    const { Vary: corsVary, ...corsRest } = sendOptions.cors ? corsHeaders(cors, answer.resource, origin) : {};
    const headers: Record<string, string> = { ...options.baseHeaders, ...answer.headers, ...corsRest };
    let body: Buffer = Buffer.from(answer.body);
    const compressible = body.length > MIN_COMPRESSED_BYTES || (answer.status === 304 && answer.resource === "openapi");
    if (answer.stream) {
      await sendStream(response, answer.status, headers, answer.stream);
      return;
    }
    // Watched before compressing: if that fails, the 500 sent instead still counts as written.
    if (answer.unanswered || answer.answered) onUnwritten(response, answer.unanswered ?? nothing, answer.answered ?? nothing);
    const vary = mergeVary(compressible ? "Accept-Encoding" : undefined, corsVary);
    if (vary) headers.Vary = vary;
    if (answer.status === 304) {
      response.writeHead(304, headers);
      response.end();
      return;
    }
    const encoding = compressible ? negotiateEncoding(single(request.headers["accept-encoding"]), options.encodings) : null;
    if (encoding !== null && body.length > MIN_COMPRESSED_BYTES) {
      body = await encode(answer, body, encoding);
      headers["Content-Encoding"] = encoding;
    }
    headers["Content-Length"] = String(body.length);
    response.writeHead(answer.status, headers);
    response.end(request.method === "HEAD" ? undefined : body);
  };

  const answerV1 = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    pathname: string,
    search: string,
    setFacts: (facts: HandedFacts) => void,
  ): Promise<void> => {
    const method = request.method ?? "GET";
    const origin = single(request.headers.origin);
    const requestMethod = single(request.headers["access-control-request-method"]);
    const preflight = isPreflight(method, origin, requestMethod);
    if (preflight && origin !== undefined && requestMethod !== undefined) {
      const resource = router.resourceOf(pathname);
      const allowed = preflightHeaders(cors, resource, origin, requestMethod);
      if (allowed !== null) {
        response.writeHead(204, { ...options.baseHeaders, ...allowed, "Content-Length": "0" });
        response.end();
        return;
      }
    }
    const answer = await router.answer({
      method,
      pathname,
      query: new URLSearchParams(search),
      authorization: single(request.headers.authorization) ?? null,
      ifNoneMatch: single(request.headers["if-none-match"]) ?? null,
      clientAddress: clientIp(request.headers),
      cacheControl: single(request.headers["cache-control"]) ?? null,
      body: () => readBody(request, BATCH_BODY_MAX_BYTES),
    });
    const requestId = answer.headers["X-Request-Id"] ?? null;
    if (answer.facts) setFacts({ ...answer.facts, requestId });
    else setFacts({ keyId: null, operation: resourceOperation(answer.resource), requestId });
    // A refused preflight is answered as OPTIONS always was (405), and without CORS headers.
    await send(request, response, answer, { cors: !preflight });
  };

  // With traces on, each request is handled inside its span (lib/front/request-span.ts).
  const handleRequest = (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> =>
    traceRequest(request, options.observers, (observers) => handleObserved(request, response, observers));

  const handleObserved = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    observers: readonly RequestObserver[] | undefined,
  ): Promise<void> => {
    // Whatever a client wrote under this name is replaced: only the front knows the peer.
    request.headers[CLIENT_ADDRESS_HEADER] = clientAddress(
      request.socket.remoteAddress,
      request.headers["x-forwarded-for"],
      options.trustedProxyHops,
    );
    if (options.trustedProxyHops === 0) for (const name of FORWARDED_HEADERS) delete request.headers[name];
    for (const [name, value] of Object.entries(options.everyAnswerHeaders ?? {})) response.setHeader(name, value);
    const target = readRequestTarget(request.url ?? "/");
    const v1 = target.kind !== "invalid" && isV1Path(target.pathname);
    const pathname = target.kind === "invalid" ? "(invalid)" : target.pathname;
    const observed =
      observers && observers.length > 0
        ? observeRequest(request, response, { area: areaOf(pathname, v1, options.mcp?.path), pathname }, observers)
        : null;
    const setFacts = (facts: HandedFacts) => observed?.setAnswerFacts(facts);
    try {
      if (request.method === "TRACE") {
        // Never echoed back (cross-site tracing); /v1 keeps its envelope.
        if (v1) await send(request, response, router.methodNotAllowed(target.pathname));
        else plain(response, 405, "Method Not Allowed", { Allow: ALL_METHODS });
        return;
      }
      if (target.kind === "invalid") {
        plain(response, 400, "Bad Request: the request target must be a path");
        return;
      }
      if (target.kind === "path" && options.probes !== undefined && isProbePath(target.pathname)) {
        await answerProbe(request, response, target.pathname, options.probes);
        return;
      }
      if (target.kind === "redirect" && v1) {
        // A path on this host (no scheme, no authority), in the form Next answers it elsewhere.
        const body = Buffer.from(target.location);
        response.writeHead(308, { Location: target.location, Refresh: `0;url=${target.location}`, "Content-Length": String(body.length) });
        response.end(request.method === "HEAD" ? undefined : body);
        return;
      }
      if (target.kind === "path" && v1) {
        await answerV1(request, response, target.pathname, target.search, setFacts);
        return;
      }
      if (target.kind === "path" && options.mcp !== undefined && target.pathname === options.mcp.path) {
        await options.mcp.handle(request, response);
        return;
      }
      if (target.kind === "path" && options.metrics !== undefined && target.pathname === METRICS_PATH) {
        await options.metrics(request, response);
        return;
      }
      if (target.kind === "path" && target.absoluteForm) {
        // Only /v1 is answered by path whatever the authority; for pages, a foreign authority
        // could turn into a redirect to another host.
        plain(response, 400, "Bad Request: send the path only (origin-form), not an absolute URL");
        return;
      }
      if (target.kind === "path" && target.pathname.startsWith(AUTH_ROUTES_PREFIX)) {
        const search = withoutMalformedCallbackUrl(target.search);
        if (search !== null) request.url = `${target.pathname}${search}`;
        const cookie = request.headers.cookie === undefined ? null : withoutMalformedCallbackCookie(request.headers.cookie);
        if (cookie !== null) request.headers.cookie = cookie;
      }
      if (target.kind === "path" && target.pathname.startsWith("/api/") && hasMalformedEscapes(target.pathname)) {
        // The console API's own error shape; answered here because Next's router would 500.
        const body = Buffer.from(
          JSON.stringify({ error: { code: "invalid_text", message: "The address contains an invalid percent-encoded character (not UTF-8)." } }),
        );
        response.writeHead(400, { ...options.baseHeaders, "Content-Type": "application/json", "Cache-Control": "no-store", "Content-Length": String(body.length) });
        response.end(request.method === "HEAD" ? undefined : body);
        return;
      }
      if (target.kind === "path" && target.pathname === FRONT_PING_PATH && (request.method === "GET" || request.method === "HEAD")) {
        response.writeHead(200, { "Content-Type": "application/json", "Content-Length": "11", "Cache-Control": "no-store" });
        response.end(request.method === "HEAD" ? undefined : '{"ok":true}');
        return;
      }
      handOverPolicy(request, response, options.nextPolicy());
      await options.next(request, response);
    } catch (error) {
      log.error("front failed", { path: target.kind === "invalid" ? null : target.pathname, err: error });
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (v1) await send(request, response, router.internalError());
      else plain(response, 500, "Internal Server Error");
    }
  };

  /** CONNECT (a proxy's tunnel): this is no proxy. */
  const handleConnect = (_request: http.IncomingMessage, socket: Duplex): void => {
    const body = "Method Not Allowed\n";
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nAllow: ${ALL_METHODS}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };

  return { handleRequest, handleConnect };
};
