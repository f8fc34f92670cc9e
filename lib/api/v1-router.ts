import crypto from "node:crypto";
import type { Operation } from "@/lib/operations";
import { log } from "@/lib/log";
import { runAccount, type AccountDeps } from "./account";
import { errorBody, JSON_CONTENT_TYPE } from "./envelope";
import { messages, type ApiErrorCode } from "./errors";
import type { Db } from "@/lib/db/client";
import { maxAgeFromCacheControl } from "./freshness";
import { countLookup, isFreeRefusal, releasedLookup } from "./lookup-metrics";
import { runLookup, type PipelineDeps, type PipelineResult } from "./pipeline";
import { batchMethods, batchRoute, runBatchRequest } from "./v1-batches";

/**
 * Every /v1 answer, without Next and without node:http: the registry's operations, /v1/account,
 * /v1/openapi.json, and the contract's 404/405 envelopes for everything else under /v1. The
 * process front (lib/front) turns a request into a V1Request and a V1Answer into bytes; tests can
 * hand it a registry with an extra operation.
 */
export const ACCOUNT_PATH = "/v1/account";
export const OPENAPI_PATH = "/v1/openapi.json";

export type V1Request = {
  method: string;
  /** The normalised path (dot segments resolved, percent-encoding untouched). */
  pathname: string;
  query: URLSearchParams;
  authorization: string | null;
  ifNoneMatch: string | null;
  /** The client's address as the front determined it (TRUSTED_PROXY_HOPS). */
  clientAddress: string;
  /** The Cache-Control request header (freshness of upstream answers). */
  cacheControl?: string | null;
  /** The request body as text, read on demand (POST /v1/batches); null when there is none. */
  body?: () => Promise<string | null>;
};

/** What was asked for: the front applies CORS and compression by it. */
export type V1Resource = "operation" | "account" | "openapi" | "batches" | "none";

export type V1Answer = {
  status: number;
  headers: Record<string, string>;
  body: string;
  resource: V1Resource;
  /** A results file, sent chunk by chunk as it is read (instead of body). */
  stream?: AsyncGenerator<string>;
  /** Called by the front when the answer could not be written (the client closed first): no charge stands. */
  unanswered?: () => void;
  /** Called by the front when the answer was written: the lookup is counted as its usage record stands. */
  answered?: () => void;
  /** The key and operation of the answer, for the front's request log and metrics. */
  facts?: AnswerFacts;
};

/** What the front cannot read from an answer's bytes: the key /v1 authenticated (never its token) and the operation. */
export type AnswerFacts = { keyId: string | null; operation: string | null };

export type V1RouterDeps = {
  /** The process's services (lib/services.ts), or a test's own wiring. */
  services: () => Promise<PipelineDeps & AccountDeps>;
  /** The OpenAPI document; built once, on the first request that asks for it. */
  openApiDocument: () => unknown;
  /** /v1/batches: the database and this server's public address. Without it /v1/batches is 404. */
  batches?: { db: () => Promise<Db>; publicUrl: string; wake: () => void };
};

const envelopeHeaders = (extra: Record<string, string>): Record<string, string> => ({
  "Cache-Control": "no-store",
  "Content-Type": JSON_CONTENT_TYPE,
  ...extra,
});

const envelopeAnswer = (status: number, body: string, headers: Record<string, string>, resource: V1Resource): V1Answer => ({
  status,
  headers: envelopeHeaders(headers),
  body,
  resource,
});

/** An error envelope outside the pipeline: unknown path, wrong method, services down. */
const plainError = (code: ApiErrorCode, message: string, resource: V1Resource, extra: Record<string, string> = {}): V1Answer => {
  const requestId = crypto.randomUUID();
  return envelopeAnswer(code, errorBody(code, message, requestId), { ...extra, "X-Request-Id": requestId }, resource);
};

/** One trailing slash names the same resource, as it always has. */
const withoutTrailingSlash = (pathname: string): string =>
  pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;

type OpenApiAsset = { body: string; etag: string };

/** Weak: the gzip and br forms of the document carry the same validator. */
const entityTag = (body: string): string => `W/"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

/** If-None-Match matches (weak comparison, RFC 9110 §13.1.2). */
export const etagMatches = (ifNoneMatch: string | null, etag: string): boolean => {
  if (ifNoneMatch === null) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((candidate) => candidate.trim() === "*" || opaque(candidate) === opaque(etag));
};

/**
 * What happens once the front knows whether a lookup's answer reached its client. Unanswered, a
 * request with a usage record (any key that got past authentication) is released: its record
 * becomes 499 — except a free refusal, which may lie folded in an aggregate record and stands as
 * it is. Either way the lookup is counted as its record then stands (lib/api/lookup-metrics.ts).
 */
const delivery = (result: PipelineResult, release: () => void): Pick<V1Answer, "unanswered" | "answered"> => {
  const { recorded } = result;
  if (recorded === null) return result.keyId === null ? {} : { unanswered: release };
  if (isFreeRefusal(recorded)) return { answered: () => countLookup(recorded), unanswered: () => countLookup(recorded) };
  return {
    answered: () => countLookup(recorded),
    unanswered: () => {
      release();
      countLookup(releasedLookup(recorded));
    },
  };
};

export const createV1Router = (registry: readonly Operation[], deps: V1RouterDeps) => {
  const operations = new Map<string, Operation>(registry.map((operation) => [operation.path, operation]));
  let openApi: OpenApiAsset | undefined;
  const openApiAsset = (): OpenApiAsset => {
    if (openApi === undefined) {
      const body = JSON.stringify(deps.openApiDocument());
      openApi = { body, etag: entityTag(body) };
    }
    return openApi;
  };

  const lookup = async (operation: Operation, request: V1Request): Promise<V1Answer> => {
    try {
      const services = await deps.services();
      const input = {
        authorization: request.authorization,
        query: request.query,
        clientAddress: request.clientAddress,
        channel: "api" as const,
        maxAgeS: maxAgeFromCacheControl(request.cacheControl ?? null),
        countOnDelivery: true,
      };
      const result = await runLookup(operation, input, services);
      const answer = { ...envelopeAnswer(result.status, result.body, result.headers, "operation"), facts: { keyId: result.keyId, operation: operation.id } };
      return { ...answer, ...delivery(result, () => services.settler.release(result.requestId)) };
    } catch (error) {
      // The services could not start (e.g. database unreachable): still only the envelope.
      log.error("pipeline unavailable", { operation: operation.id, err: error });
      return plainError(500, messages.internal, "operation");
    }
  };

  const account = async (request: V1Request): Promise<V1Answer> => {
    try {
      const result = await runAccount({ authorization: request.authorization, clientAddress: request.clientAddress }, await deps.services());
      return { ...envelopeAnswer(result.status, result.body, result.headers, "account"), facts: { keyId: result.keyId ?? null, operation: "account" } };
    } catch (error) {
      log.error("account endpoint unavailable", { err: error });
      return plainError(500, messages.internal, "account");
    }
  };

  const batches = async (request: V1Request, path: string): Promise<V1Answer> => {
    const route = batchRoute(path);
    if (route === null || deps.batches === undefined) return plainError(404, messages.notFoundPath, "none");
    if (!batchMethods(route).split(", ").includes(request.method)) return plainError(405, messages.methodNotAllowed, "batches", { Allow: batchMethods(route) });
    const { db, publicUrl, wake } = deps.batches;
    try {
      const services = await deps.services();
      const result = await runBatchRequest(
        route,
        {
          method: request.method,
          authorization: request.authorization,
          query: request.query,
          body: request.body ?? (async () => null),
          publicUrl,
          clientAddress: request.clientAddress,
        },
        { authenticator: services.authenticator, limiter: services.limiter, db, wake, operations: registry },
      );
      const facts = { keyId: result.keyId ?? null, operation: "batches" };
      if (result.stream) return { status: result.status, headers: { "Cache-Control": "no-store", ...result.headers }, body: "", resource: "batches", stream: result.stream, facts };
      return { ...envelopeAnswer(result.status, result.body, result.headers, "batches"), facts };
    } catch (error) {
      log.error("batches endpoint unavailable", { err: error });
      return plainError(500, messages.internal, "batches");
    }
  };

  const openApiDocument = (request: V1Request): V1Answer => {
    const asset = openApiAsset();
    const headers = {
      "Cache-Control": "public, max-age=300",
      "Content-Type": JSON_CONTENT_TYPE,
      ETag: asset.etag,
    };
    if (etagMatches(request.ifNoneMatch, asset.etag)) return { status: 304, headers, body: "", resource: "openapi" };
    return { status: 200, headers, body: asset.body, resource: "openapi" };
  };

  const resourceOf = (pathname: string): V1Resource => {
    const path = withoutTrailingSlash(pathname);
    if (operations.has(path)) return "operation";
    if (path === ACCOUNT_PATH) return "account";
    if (path === OPENAPI_PATH) return "openapi";
    if (deps.batches !== undefined && batchRoute(path) !== null) return "batches";
    return "none";
  };

  const allowed = (resource: V1Resource, path: string): string => {
    if (resource === "openapi") return "GET, HEAD";
    const route = resource === "batches" ? batchRoute(path) : null;
    return route === null ? "GET" : batchMethods(route);
  };

  /** The answer to one /v1 request. */
  const answer = async (request: V1Request): Promise<V1Answer> => {
    const resource = resourceOf(request.pathname);
    const path = withoutTrailingSlash(request.pathname);
    switch (resource) {
      case "operation":
      case "account": {
        // HEAD is refused like every method but GET: a lookup spends credits, and a charge for
        // an answer whose body is never sent is no answer (docs-front.md "HEAD").
        if (request.method !== "GET") return methodNotAllowed(request.pathname);
        const operation = operations.get(path);
        return operation === undefined ? account(request) : lookup(operation, request);
      }
      case "openapi":
        if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed(request.pathname);
        return openApiDocument(request);
      case "batches":
        return batches(request, path);
      case "none":
        return plainError(404, messages.notFoundPath, "none");
    }
  };

  /** 405 with Allow for a resource that exists, 404 for a path that does not. */
  const methodNotAllowed = (pathname: string): V1Answer => {
    const resource = resourceOf(pathname);
    if (resource === "none") return plainError(404, messages.notFoundPath, "none");
    return plainError(405, messages.methodNotAllowed, resource, { Allow: allowed(resource, withoutTrailingSlash(pathname)) });
  };

  const internalError = (): V1Answer => plainError(500, messages.internal, "none");

  return { answer, resourceOf, methodNotAllowed, internalError };
};

export type V1Router = ReturnType<typeof createV1Router>;
