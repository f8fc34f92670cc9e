import type { z } from "zod";
import { currentUser } from "@/lib/auth/session";
import { clientIp } from "@/lib/auth/options";
import { getDb, type Db } from "@/lib/database";
import { env } from "@/lib/env";
import { DomainError, isDomainError, type DomainErrorCode } from "@/lib/errors";
import { log } from "@/lib/log";
import { MAX_JSON_BODY_BYTES, parseJsonBody, urlProblem } from "./input";
import type { User } from "@/lib/users/repository";

/**
 * One wrapper for the session-authenticated console JSON API (/api/*): session check, role
 * check, same-origin check on every request (CSRF, GET included), zod-validated JSON bodies, and errors as
 * `{error: {code, message}}` with the right status. Handlers return data or throw DomainError;
 * its code picks the status from statusOf below, the one table of the console edge.
 */
export type ConsoleStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503;

export const notFound = (what = "Not found") => new DomainError("not_found", what);

export type ConsoleContext<Body> = {
  user: User;
  body: Body;
  params: Record<string, string>;
  query: URLSearchParams;
  ip: string;
  db: Db;
  request: Request;
};

/** The console's status for each domain error: the one place this mapping lives. */
export const statusOf: Record<DomainErrorCode, ConsoleStatus> = {
  not_found: 404,
  forbidden: 403,
  invalid_request: 400,
  missing_parameter: 400,
  invalid_parameter: 400,
  invalid_cursor: 400,
  // The caller's to fix: allowance, revoked keys, wrong token, a provider key the provider refused.
  key_rule: 422,
  provider_key_rejected: 422,
  provider_key_exhausted: 422,
  provider_key_unreachable: 503,
  provider_key_rate_limited: 503,
  provider_key_bad_answer: 503,
  upstream_not_configured: 409,
  no_provider_key: 409,
  source_rate_limited: 429,
  set_by_environment: 409,
  // Batches.
  unknown_operation: 400,
  no_valid_inputs: 400,
  too_many_inputs: 400,
  cap_below_one_lookup: 400,
  no_console_key: 409,
  invalid_webhook: 400,
  key_cannot_pay: 402,
  operation_not_allowed: 403,
  wrong_state: 409,
  nothing_to_retry: 409,
  quota_exceeded: 429,
  // Accounts.
  email_taken: 409,
  wrong_password: 400,
  no_password: 400,
  self_disable: 400,
  too_many_attempts: 429,
  // Workspaces.
  last_owner: 409,
  workspace_rule: 409,
  invitation_invalid: 404,
  // Requests.
  unauthenticated: 401,
  cross_origin: 403,
  body_too_large: 413,
  invalid_text: 400,
  invalid_json: 400,
  empty_upload: 400,
  upload_too_large: 400,
  not_utf8: 400,
};

const errorResponse = (status: ConsoleStatus, code: string, message: string) =>
  Response.json({ error: { code, message } }, { status, headers: { "Cache-Control": "no-store" } });

/**
 * The console's own origin: PUBLIC_URL's when it is configured; otherwise the one the request was
 * made to — Host and the connection's protocol, or what the operator's proxies forwarded when
 * TRUSTED_PROXY_HOPS > 0. A client's own X-Forwarded-Host never makes another site "same origin".
 */
const ownOrigin = (request: Request): string => {
  const config = env();
  if (config.PUBLIC_URL !== undefined) return new URL(config.PUBLIC_URL).origin;
  const url = new URL(request.url);
  const forwarded = (name: string) =>
    config.TRUSTED_PROXY_HOPS > 0 ? (request.headers.get(name)?.split(",")[0]?.trim() || undefined) : undefined;
  const host = forwarded("x-forwarded-host") ?? request.headers.get("host") ?? url.host;
  const proto = forwarded("x-forwarded-proto") ?? url.protocol.replace(":", "");
  return `${proto}://${host}`;
};

/**
 * Browsers always send Origin on cross-site mutations and Sec-Fetch-Site on every request
 * (a top-level cross-site navigation is a GET with `Sec-Fetch-Site: cross-site` and no Origin);
 * scripts using the API with a session cookie send neither, and cannot be forged by another site.
 */
export const isSameOrigin = (request: Request): boolean => {
  const origin = request.headers.get("origin");
  if (origin === null) {
    const site = request.headers.get("sec-fetch-site");
    return site === null || site === "same-origin" || site === "none";
  }
  return origin === ownOrigin(request);
};

const tooLarge = () => new DomainError("body_too_large", "The request body is larger than 1 MB.");

/** The body's bytes, refusing (without reading on) one larger than the JSON limit. */
const readLimited = async (request: Request): Promise<Uint8Array> => {
  if (Number(request.headers.get("content-length") ?? "0") > MAX_JSON_BODY_BYTES) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    total += chunk.value.byteLength;
    if (total > MAX_JSON_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks);
};

const readBody = async <Body>(request: Request, schema: z.ZodType<Body>): Promise<Body> => {
  const parsedBody = parseJsonBody(await readLimited(request));
  if (!parsedBody.ok) throw new DomainError(parsedBody.code, parsedBody.message);
  const parsed = schema.safeParse(parsedBody.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    throw new DomainError("invalid_request", `${field}: ${issue?.message ?? "invalid value"}`);
  }
  return parsed.data;
};

type RouteContext = { params: Promise<Record<string, string | string[]>> };

/** Where a route finds the signed-in user and the database; tests pass their own. */
export type ConsoleRouteDeps = { currentUser: () => Promise<User | null>; db: () => Promise<Db> };

const processDeps: ConsoleRouteDeps = { currentUser, db: getDb };

type RouteOptions<Body> = { body?: z.ZodType<Body>; role?: "admin"; status?: number; deps?: ConsoleRouteDeps };

/** Every console route's path through a request; `signedIn` says whether it needs a session. */
const handle = async <Body>(
  request: Request,
  route: RouteContext | undefined,
  options: RouteOptions<Body>,
  signedIn: boolean,
  handler: (context: Omit<ConsoleContext<Body>, "user"> & { user: User | null }) => Promise<unknown>,
): Promise<Response> => {
  try {
    // Every method: a console GET may spend credits (lookups) and the session cookie is
    // SameSite=Lax, so a link on another site would otherwise carry it.
    if (!isSameOrigin(request)) {
      throw new DomainError("cross_origin", "Cross-origin requests are not allowed.");
    }
    // Bad text is refused before anything reads it (NUL would reach PostgreSQL as an error).
    const badUrl = urlProblem(new URL(request.url));
    if (badUrl) throw new DomainError("invalid_text", badUrl);
    const deps = options.deps ?? processDeps;
    const user = await deps.currentUser();
    if (!user && signedIn) throw new DomainError("unauthenticated", "Sign in to use the console API.");
    if (options.role === "admin" && user?.role !== "admin") {
      throw new DomainError("forbidden", "This needs an administrator.");
    }
    // Next passes no params (undefined) to routes without dynamic segments.
    const rawParams = (route ? await route.params : undefined) ?? {};
    const params = Object.fromEntries(
      Object.entries(rawParams).map(([name, value]) => [name, Array.isArray(value) ? value.join("/") : value]),
    );
    const body = options.body ? await readBody(request, options.body) : (undefined as Body);
    const result = await handler({
      user,
      body,
      params,
      query: new URL(request.url).searchParams,
      ip: clientIp(request.headers),
      db: await deps.db(),
      request,
    });
    if (result instanceof Response) return result;
    return Response.json(result, { status: options.status ?? 200, headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    if (isDomainError(error)) return errorResponse(statusOf[error.code], error.code, error.message);
    log.error("console api failed", { path: new URL(request.url).pathname, err: error });
    return errorResponse(500, "internal", "Something went wrong on our side. Try again.");
  }
};

export const consoleRoute =
  <Body = undefined>(options: RouteOptions<Body>, handler: (context: ConsoleContext<Body>) => Promise<unknown>) =>
  (request: Request, route?: RouteContext): Promise<Response> =>
    handle(request, route, options, true, ({ user, ...context }) => {
      if (!user) throw new DomainError("unauthenticated", "Sign in to use the console API.");
      return handler({ ...context, user });
    });

/**
 * A console route that also answers a visitor who is not signed in (accepting an invitation by
 * setting a password): the same origin, body and error rules; `user` is null for the visitor.
 */
export const openConsoleRoute =
  <Body = undefined>(
    options: Omit<RouteOptions<Body>, "role">,
    handler: (context: Omit<ConsoleContext<Body>, "user"> & { user: User | null }) => Promise<unknown>,
  ) =>
  (request: Request, route?: RouteContext): Promise<Response> =>
    handle(request, route, options, false, handler);
