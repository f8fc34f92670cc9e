import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ApiTarget } from "@/tests/api/harness";
import { consoleClient, type Session } from "./console-session";

/**
 * Property-based fuzzing (docs/security.md "Input") of the console JSON API — every route under
 * app/api/ but next-auth's own — against the API suite's production servers. For each route,
 * fast-check generates REQUESTS_PER_ROUTE (FUZZ_REQUESTS_PER_ROUTE, 1,000 unless set; a new seed each run) requests
 * over its methods on the first target and REQUESTS_PER_ROUTE_SECONDARY on the other. npm test runs
 * the embedded database alone with a sample of 200; npm run test:proofs, PostgreSQL alone with 1,000:
 * path parameters, query strings and JSON bodies mixing plausible values with NUL, lone surrogates,
 * invalid and overlong UTF-8 percent-escapes, control characters, very long text and odd JSON.
 * Properties: no answer is a 5xx, and every JSON error is `{error: {code, message}}` with a
 * readable message.
 *
 * Sessions: an analyst for user routes, the admin for admin routes; DELETE /api/me/sessions
 * ends the sessions of a user of its own (then answers 401, as it should). PUT /api/admin/upstream
 * is restored afterwards.
 */
const targets = inject("apiTargets");

const REQUESTS_PER_ROUTE = Number(process.env.FUZZ_REQUESTS_PER_ROUTE ?? 1000);
/**
 * The other target (PostgreSQL) runs the same generators on fewer requests: the full count on
 * both would double a suite that already takes minutes (~55 requests/s on a shared 2-core machine).
 */
const REQUESTS_PER_ROUTE_SECONDARY = Math.min(REQUESTS_PER_ROUTE, 250);
const CONCURRENCY = 12;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

// ---------------------------------------------------------------------------------------------
// Text

const percent = (text: string) => encodeURIComponent(text);

/** Raw percent-escapes that are not valid UTF-8: overlong NUL and "/", lone bytes, surrogates. */
const badEscapes = fc.constantFrom("%00", "%C0%80", "%C0%AF", "%E0%80%80", "%FF", "%80", "%ED%A0%80", "%ED%BF%BF", "%F4%90%80%80", "%C3", "%E2%82");

/** Strings as JSON can carry them: NUL, lone surrogates, controls, long, unicode, empty. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfffy", "\ud83d", "\u0001\u001f\u007f", "\u202e", "\ufeff", "", " ", "null", "0", "-1", "1e309", "NaN", "__proto__", "constructor", "../../etc/passwd", "%00", "<script>", "' OR 1=1 --"),
  fc.nat({ max: 20_000 }).map((length) => "a".repeat(length)),
  fc.tuple(fc.string({ maxLength: 10 }), fc.constantFrom("\u0000", "\ud800", "\udc00")).map(([text, bad]) => `${text}${bad}${text}`),
);

/**
 * A path segment or query value, already percent-encoded (valid or deliberately not). Kept under
 * 2,000 characters: past 16 KB of request line and headers Node answers 431 before the app, and
 * a response echoing a long path in a header would overflow the client's own header limit.
 */
const encodedText = fc.oneof(
  { weight: 3, arbitrary: nastyString.map((text) => percent(text.replace(/[\ud800-\udfff]/g, "").slice(0, 600))) },
  { weight: 2, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), badEscapes).map(([text, escape]) => `${percent(text)}${escape}`) },
  { weight: 1, arbitrary: fc.constantFrom("key_x", "usr_x", "1", "999999999999", "followers", "event_details_id", "all", "mine", "24h", "2025-01-01") },
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(nastyString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A body built from the route's field names (so handlers see plausible shapes) or anything at all. */
const bodyFor = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string | Uint8Array<ArrayBuffer>> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.record(Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, fc.oneof(value, jsonValue)])), { requiredKeys: [] }).map((body) => JSON.stringify(body)) },
    { weight: 2, arbitrary: jsonValue.map((body) => JSON.stringify(body) ?? "null") },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 }).map((bytes) => Uint8Array.from(bytes)) },
    { weight: 1, arbitrary: fc.nat({ max: 2000 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`) },
  );

const any = jsonValue;
const anInt = fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constantFrom(0, 1, 2 ** 53, -(2 ** 31), 1.5));

// ---------------------------------------------------------------------------------------------
// Routes

type As = "analyst" | "admin" | "doomed";
type Route = {
  name: string;
  as: As;
  methods: readonly string[];
  /** Path with :param placeholders filled by fuzzed text. */
  path: string;
  query?: readonly string[];
  body?: Record<string, fc.Arbitrary<unknown>>;
  /** The raw body is an upload, not JSON. */
  upload?: boolean;
};

const USAGE_QUERY = ["keyId", "scope", "from", "to", "period", "status", "operation", "cursor", "limit", "format", "days"];

const ROUTES: Route[] = [
  { name: "/api/me", as: "analyst", methods: ["GET"], path: "/api/me" },
  { name: "/api/me/password", as: "analyst", methods: ["POST"], path: "/api/me/password", body: { currentPassword: nastyString, newPassword: nastyString } },
  { name: "/api/me/sessions", as: "doomed", methods: ["DELETE"], path: "/api/me/sessions" },
  { name: "/api/me/provider-key", as: "analyst", methods: ["GET", "PUT", "DELETE"], path: "/api/me/provider-key", body: { key: nastyString } },
  { name: "/api/keys", as: "analyst", methods: ["GET", "POST"], path: "/api/keys", query: ["scope"], body: { name: nastyString, credits: anInt, qpsLimit: anInt, expiresAt: nastyString, useForConsole: fc.boolean() } },
  { name: "/api/keys/:id", as: "analyst", methods: ["GET", "PATCH", "DELETE"], path: "/api/keys/:id", body: { operations: any, allowedAddresses: fc.array(nastyString), refill: any, alertThresholds: any } },
  { name: "/api/keys/:id/roll", as: "analyst", methods: ["POST"], path: "/api/keys/:id/roll", body: { grace: fc.constantFrom("none", "1h", "24h", "2h", "") } },
  { name: "/api/keys/:id/console", as: "analyst", methods: ["POST"], path: "/api/keys/:id/console", body: { token: nastyString } },
  { name: "/api/keys/:id/credits", as: "admin", methods: ["POST"], path: "/api/keys/:id/credits", body: { credits: anInt, reason: nastyString } },
  { name: "/api/keys/:id/alerts", as: "analyst", methods: ["GET", "PUT"], path: "/api/keys/:id/alerts", body: { thresholdCredits: anInt, thresholdPercent: anInt, webhookUrl: nastyString } },
  { name: "/api/keys/:id/budget", as: "analyst", methods: ["GET", "PUT"], path: "/api/keys/:id/budget", body: { dailyCreditCap: anInt } },
  { name: "/api/alerts", as: "analyst", methods: ["GET"], path: "/api/alerts" },
  { name: "/api/alerts/:id/ack", as: "analyst", methods: ["POST"], path: "/api/alerts/:id/ack" },
  { name: "/api/admin/users", as: "admin", methods: ["GET", "POST"], path: "/api/admin/users", body: { email: nastyString, name: nastyString, role: fc.constantFrom("admin", "analyst", "root"), password: nastyString, creditAllowance: anInt } },
  { name: "/api/admin/users/:id", as: "admin", methods: ["PATCH"], path: "/api/admin/users/:id", body: { status: fc.constantFrom("active", "disabled", "x"), creditAllowance: anInt, password: nastyString, role: any } },
  { name: "/api/admin/audit", as: "admin", methods: ["GET"], path: "/api/admin/audit", query: ["limit", "before", "beforeId", "cursor"] },
  { name: "/api/admin/upstream", as: "admin", methods: ["GET", "PUT"], path: "/api/admin/upstream", body: { baseUrl: nastyString, apiKey: nastyString, check: fc.constant(false) } },
  { name: "/api/admin/import", as: "admin", methods: ["POST"], path: "/api/admin/import", query: ["name", "strict"], upload: true },
  { name: "/api/console/lookup/:operation", as: "analyst", methods: ["GET"], path: "/api/console/lookup/:operation", query: ["url", "event_id", "userid", "node_id", "cursor", "urn", "page"] },
  { name: "/api/console/meter", as: "analyst", methods: ["GET"], path: "/api/console/meter" },
  { name: "/api/console/recent", as: "analyst", methods: ["GET"], path: "/api/console/recent", query: ["operation", "limit"] },
  { name: "/api/usage/summary", as: "analyst", methods: ["GET"], path: "/api/usage/summary", query: USAGE_QUERY },
  { name: "/api/usage/events", as: "analyst", methods: ["GET"], path: "/api/usage/events", query: USAGE_QUERY },
  { name: "/api/usage/export", as: "analyst", methods: ["GET"], path: "/api/usage/export", query: USAGE_QUERY },
  { name: "/api/health", as: "analyst", methods: ["GET"], path: "/api/health" },
  { name: "/api/ping", as: "analyst", methods: ["GET"], path: "/api/ping" },
];

type Request = { method: string; path: string; body?: string | Uint8Array<ArrayBuffer>; contentType?: string };

const requestFor = (route: Route): fc.Arbitrary<Request> => {
  const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? "");
  const query = route.query ?? [];
  return fc
    .record({
      method: fc.constantFrom(...route.methods),
      params: fc.tuple(...params.map(() => encodedText)),
      query: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...(query.length > 0 ? query : ["x"])), encodedText), encodedText), { maxLength: 4 }),
      body: route.upload ? fc.oneof(fc.string({ maxLength: 200 }), fc.array(jsonValue, { maxLength: 5 }).map((items) => items.map((item) => JSON.stringify(item)).join("\n"))) : bodyFor(route.body ?? { x: any }),
    })
    .map(({ method, params: values, query: pairs, body }) => {
      let index = 0;
      const path = route.path.replace(/:(\w+)/g, () => values[index++] ?? "x");
      const search = pairs.map(([name, value]) => `${name}=${value}`).join("&");
      const withBody = method !== "GET" && method !== "DELETE";
      return {
        method,
        path: search === "" ? path : `${path}?${search}`,
        body: withBody ? body : undefined,
        contentType: route.upload ? "application/x-ndjson" : "application/json",
      };
    });
};

// ---------------------------------------------------------------------------------------------

type Outcome = { request: Request; status: number; text: string; contentType: string };

const mapConcurrent = async <T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let index = next++; index < items.length; index = next++) results[index] = await work(items[index] as T);
    }),
  );
  return results;
};

describe.each(targets)("$kind server: console API fuzz, every error readable and no 5xx", (target: ApiTarget) => {
  const client = consoleClient(target);
  const sessions = {} as Record<As, Session>;

  beforeAll(async () => {
    sessions.admin = await client.admin();
    sessions.analyst = await client.analyst(sessions.admin, "fuzz", 1_000_000);
    sessions.doomed = await client.analyst(sessions.admin, "fuzz-doomed", 0);
    // A console key, so lookups reach the pipeline.
    const key = await client.api(sessions.analyst, "POST", "/api/keys", { json: { name: "fuzz console key", credits: 100_000, qpsLimit: 1000, useForConsole: true } });
    expect(key.status, key.text).toBe(201);
  });

  afterAll(async () => {
    await client.api(sessions.admin, "PUT", "/api/admin/upstream", { json: { baseUrl: null, apiKey: null, check: false } });
  });

  const send = async (session: Session, request: Request): Promise<Outcome> => {
    const headers: Record<string, string> = { Cookie: session.cookie, Accept: "application/json" };
    if (request.body !== undefined) headers["Content-Type"] = request.contentType ?? "application/json";
    const response = await fetch(`${target.baseUrl}${request.path}`, { method: request.method, headers, body: request.body, redirect: "manual" });
    const text = await response.text();
    return { request, status: response.status, text, contentType: response.headers.get("content-type") ?? "" };
  };

  const count = targets.indexOf(target) === 0 ? REQUESTS_PER_ROUTE : REQUESTS_PER_ROUTE_SECONDARY;

  it.each(ROUTES.map((route, index) => [route.name, route, index] as const))(`%s: ${count} fuzzed requests, no 5xx, readable errors`, async (_name, route, index) => {
    const requests = fc.sample(requestFor(route), { numRuns: count, seed: SEED + index });
    const started = performance.now();
    const outcomes = await mapConcurrent(requests, CONCURRENCY, (request) => send(sessions[route.as], request));
    const elapsedS = (performance.now() - started) / 1000;
    const describe = (outcome: Outcome) => `${outcome.status} ${outcome.request.method} ${outcome.request.path.slice(0, 200)} body=${JSON.stringify(String(outcome.request.body ?? "").slice(0, 200))} → ${outcome.text.slice(0, 300)}`;
    const serverErrors = outcomes.filter((outcome) => outcome.status >= 500);
    expect(serverErrors.map(describe), `seed ${SEED + index}`).toEqual([]);
    const unreadable = outcomes.filter((outcome) => {
      if (outcome.status < 400 || !outcome.contentType.startsWith("application/json")) return false;
      const body = JSON.parse(outcome.text) as { error?: { code?: unknown; message?: unknown }; code?: unknown; message?: unknown };
      // Console lookups answer /v1's envelope {code, message, data, requestId}; every other route {error: {code, message}}.
      const error = route.name.startsWith("/api/console/lookup/") && typeof body.code === "number" ? { code: String(body.code), message: body.message } : body.error;
      return typeof error?.code !== "string" || typeof error.message !== "string" || error.message.length < 4 || /ZodError|\bat \S+ \(|\[object /.test(error.message);
    });
    expect(unreadable.map(describe), `seed ${SEED + index}`).toEqual([]);
    const statuses: Record<number, number> = {};
    for (const outcome of outcomes) statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
    console.log(`[fuzz] ${target.kind} ${route.name}: ${outcomes.length} requests in ${elapsedS.toFixed(1)} s, statuses ${JSON.stringify(statuses)}`);
    expect(outcomes).toHaveLength(count);
  }, 600_000);
});
