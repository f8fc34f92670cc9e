import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chargedCredits,
  closeAgents,
  closeDatabase,
  cluster,
  countStatuses,
  database,
  ensureWholeCluster,
  header,
  instanceFor,
  issueKey,
  mapConcurrent,
  OPERATION_PATHS,
  readLedger,
  send,
  skipped,
  sumCharged,
  type Answer,
  type IssuedKey,
  type OperationName,
} from "./harness";
import { loadOracle, type Oracle } from "./openapi-oracle";

/**
 * Property-based fuzzing of /v1 across the three instances: fast-check generates query strings,
 * Authorization variants, junk headers and paths; at least 10,000 requests per operation (and
 * 10,000 on paths under /v1), 50 at a time over keep-alive connections. Properties: no 5xx,
 * every answer a valid envelope of /v1/openapi.json (documented status, its schema, the header
 * facts), and credits move only with 200s (sum of X-Credits-Charged = credits spent = credits of
 * the 200 usage records).
 *
 * Generated input is valid HTTP with valid percent-encoding. Two path shapes are left out, both by
 * design of URLs rather than of this API: a doubled slash (Next answers a 308 redirect to the
 * canonical path) and RFC 3986 dot segments (`.`, `..`, `%2e`, …: resolved before routing, they
 * can leave /v1 altogether). Requests stay under 12 KB of request line and headers (Node answers
 * 431 past 16 KB, before the application), and two of Next's internal headers have a test of
 * their own instead of being mixed into the junk (FRAMEWORK_SHORTCUT_HEADERS).
 */
const REQUESTS_PER_CAMPAIGN = 10_000;
const CONCURRENCY = 50;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

// ---------------------------------------------------------------------------------------------
// Inputs

type Keys = { rich: IssuedKey; poor: IssuedKey; slow: IssuedKey; revoked: IssuedKey };
type KeyName = keyof Keys;

type Fuzzed = {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  /** Whose credits a valid token would spend (for the accounting), or null. */
  keyName: KeyName | null;
};

const VALID_VALUES: Record<string, readonly string[]> = {
  url: [
    "https://events.demo.test/events/1000000000000001/",
    "https://www.events.demo.test/events/1000000000000002",
    "https://m.events.demo.test/events/1000000000000013/?ref=x",
    "https://events.demo.test/events/1999999999999999/",
  ],
  event_id: ["1000000000000001", "1000000000000007", "1000000000000040", "1999999999999999", "1"],
  userid: ["2000000001", "2000000002", "2000000003", "2999999999"],
  node_id: ["VXNlcjoyMDAwMDAwMDAy", "VXNlcjoyMDAwMDAwMDAx", "VXNlcjo5OTk5", "YWJj"],
  cursor: ["MjU.c2lnbmVk", "MjU", "abc.def", "0.0"],
  urn: ["urn:li:member:3000000001", "urn:li:member:3000000002", "urn:li:member:3000000003", "urn:li:member:3999999999"],
  page: ["1", "2", "5", "999999", "0", "01"],
};
const PARAM_NAMES = Object.keys(VALID_VALUES);

const OPERATION_PARAMS: Record<OperationName, readonly string[]> = {
  event_details: ["url"],
  event_details_id: ["event_id"],
  followers: ["userid", "node_id", "cursor"],
  get_user_publications: ["urn", "page"],
};

/** Printable ASCII: what any client can put in a header value. */
const headerText = (maxLength: number) => fc.string({ unit: "grapheme-ascii", maxLength }).filter((text) => /^[\x20-\x7e]*$/.test(text));

const TRICKY_VALUES = [
  "",
  " ",
  "0",
  "-1",
  "1e3",
  "0x10",
  "１２３",
  "9".repeat(21),
  "null",
  "undefined",
  "[]",
  "{}",
  "true",
  "' OR 1=1 --",
  "\"; DROP TABLE api_keys; --",
  "\u0000",
  "\u0000abc",
  "%00",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "🎉",
  "\ud83d\ude00".repeat(50),
  "https://evil.example/events/1/",
  "javascript:alert(1)",
];

/** Valid values of a parameter name ("__proto__" and friends are names like any other here). */
const validValues = (name: string): readonly string[] => (Object.hasOwn(VALID_VALUES, name) ? VALID_VALUES[name] : undefined) ?? ["1"];

const paramValue = (name: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...validValues(name)) },
    { weight: 2, arbitrary: fc.constantFrom(...TRICKY_VALUES) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 1200 }).chain((length) => fc.constantFrom("7", "a", "é", "%").map((unit) => unit.repeat(length))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...validValues(name)), headerText(8)).map(([valid, junk]) => `${valid}${junk}`) },
  );

const paramName = (operation: OperationName): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...OPERATION_PARAMS[operation]) },
    { weight: 2, arbitrary: fc.constantFrom(...PARAM_NAMES) },
    { weight: 1, arbitrary: fc.constantFrom("USERID", "user_id", "UserId", "event_id[]", "urn ", " urn", "page[0]", "__proto__", "constructor") },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  );

/** Encodes like a careful client: every name and value percent-encoded (lone surrogates made well-formed). */
const encode = (text: string): string => encodeURIComponent(text.toWellFormed());

const queryString = (operation: OperationName): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.array(
        paramName(operation).chain((name) =>
          fc.tuple(fc.constant(name), paramValue(name), fc.constantFrom("pair", "pair", "pair", "pair", "flag", "plus")),
        ),
        { minLength: 0, maxLength: 5 },
      ),
      fc.constantFrom("?", "?", "?", "?&", "?&&"),
      fc.constantFrom("", "", "", "", "&", "&=", "#fragment"),
    )
    .map(([pairs, lead, tail]) => {
      const parts = pairs.map(([name, value, shape]) => {
        if (shape === "flag") return encode(name);
        if (shape === "plus") return `${encode(name)}=${encode(value).replace(/%20/g, "+")}`;
        return `${encode(name)}=${encode(value)}`;
      });
      return parts.length === 0 && tail === "" ? lead.slice(0, 1).replace("?", "") : `${lead}${parts.join("&")}${tail}`;
    });

const base64url = (text: string): string => Buffer.from(text, "utf8").toString("base64url");

/** Authorization header variants over the campaign's keys: well-formed, malformed, tampered, foreign. */
const authorization = (keys: Keys): fc.Arbitrary<{ value: string | string[] | null; keyName: KeyName | null }> => {
  const named = (keyName: KeyName) => fc.constant(keyName);
  const token = (keyName: KeyName) => keys[keyName].token;
  const valid = fc.oneof(
    { weight: 8, arbitrary: named("rich") },
    { weight: 3, arbitrary: named("poor") },
    { weight: 3, arbitrary: named("slow") },
    { weight: 2, arbitrary: named("revoked") },
  );
  const wellFormed = valid.chain((keyName) =>
    fc
      .constantFrom("Bearer ", "bearer ", "BEARER ", "Bearer  ", "Bearer\t")
      .chain((scheme) => fc.constantFrom("", " ", "  ").map((trailer) => ({ value: `${scheme}${token(keyName)}${trailer}`, keyName }))),
  );
  const broken = valid.chain((keyName) => {
    const original = token(keyName);
    return fc.oneof(
      fc.nat({ max: original.length - 1 }).map((at) => {
        const swapped = original[at] === "A" ? "B" : "A";
        return `Bearer ${original.slice(0, at)}${swapped}${original.slice(at + 1)}`;
      }),
      fc.nat({ max: original.length - 1 }).map((cut) => `Bearer ${original.slice(0, cut)}`),
      fc.constant(`Bearer ${original}x`),
      fc.constant(`Bearer ${original.split(".").slice(0, 2).join(".")}.`),
      fc.constant(`Basic ${original}`),
      fc.constant(`Token ${original}`),
      fc.constant(original),
      fc.constant(`Bearer ${original} ${original}`),
      fc.constant(`Bearer ${original},Bearer ${original}`),
    );
  });
  const forged = fc.oneof(
    fc.constant(`Bearer ${base64url('{"alg":"none","typ":"JWT"}')}.${base64url(JSON.stringify({ sub: keys.rich.id }))}.`),
    fc.constant(`Bearer ${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(JSON.stringify({ sub: keys.rich.id }))}.${"A".repeat(43)}`),
    fc.tuple(headerText(30), headerText(60), headerText(43)).map(([head, body, signature]) => `Bearer ${base64url(head)}.${base64url(body)}.${signature}`),
  );
  const junk = fc.oneof(
    fc.constantFrom("", "Bearer", "Bearer ", "bearer", "Bearer null", "Bearer undefined", "Basic dXNlcjpwYXNz", "Digest x", "Bearer ."),
    headerText(80),
    headerText(80).map((text) => `Bearer ${text}`),
    fc.integer({ min: 1000, max: 6000 }).map((length) => `Bearer ${"a".repeat(length)}`),
  );
  return fc.oneof(
    { weight: 10, arbitrary: wellFormed },
    { weight: 2, arbitrary: fc.constant({ value: null, keyName: null }) },
    { weight: 3, arbitrary: broken.map((value) => ({ value, keyName: null })) },
    { weight: 1, arbitrary: forged.map((value) => ({ value, keyName: null })) },
    { weight: 2, arbitrary: junk.map((value) => ({ value, keyName: null })) },
    { weight: 1, arbitrary: valid.map((keyName) => ({ value: [`Bearer ${token(keyName)}`, "Bearer junk"], keyName })) },
  );
};

/**
 * Two of Next's internal request headers make the framework answer by itself, before any route
 * handler: `RSC: 1` (a 307 to `?_rsc=…`) and `X-Middleware-Prefetch` (200 `{}`). They are a
 * finding of their own (the test "framework-internal request headers" below) and kept out of the
 * generated junk, so that the campaigns keep testing everything else.
 */
const FRAMEWORK_SHORTCUT_HEADERS = ["rsc", "x-middleware-prefetch"];

/** Headers a client might add, honest or not (framework-internal ones included). */
const JUNK_HEADER_NAMES = [
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "cookie",
  "accept",
  "accept-encoding",
  "accept-language",
  "content-type",
  "user-agent",
  "referer",
  "origin",
  "x-request-id",
  "if-none-match",
  "if-modified-since",
  "range",
  "cache-control",
  "x-http-method-override",
  "x-middleware-subrequest",
  "x-nextjs-data",
  "next-router-state-tree",
  "next-router-prefetch",
  "next-action",
  "next-url",
  "purpose",
  "sec-fetch-site",
  "x-invoke-path",
  "x-invoke-query",
];

const JUNK_HEADER_VALUES = [
  "1",
  "true",
  "gzip, deflate, br",
  "br",
  "*/*",
  "text/html",
  "application/json",
  "text/x-component",
  "bytes=0-10",
  "next-auth.session-token=junk; next-auth.csrf-token=x",
  "127.0.0.1, 10.0.0.1",
  "middleware:middleware:middleware:middleware:middleware",
  "proxy:proxy:proxy:proxy:proxy",
  "src/middleware:src/middleware:src/middleware:src/middleware:src/middleware",
  "%5B%22%22%2C%7B%7D%5D",
  "/v1/account",
  "prefetch",
];

const junkHeaders = fc.array(
  fc.tuple(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...JUNK_HEADER_NAMES) },
      { weight: 1, arbitrary: fc.stringMatching(/^x-[a-z0-9-]{1,20}$/).filter((name) => !FRAMEWORK_SHORTCUT_HEADERS.includes(name)) },
    ),
    fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...JUNK_HEADER_VALUES) }, { weight: 1, arbitrary: headerText(100) }),
  ),
  { maxLength: 4 },
);

const host = fc.oneof(
  { weight: 12, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom("localhost", "example.com", "evil.example:8080", "[::1]:3000", "a", "xn--e1afmkfd.xn--p1ai", "127.0.0.1:1", "x".repeat(300)) },
);

const withHeaders = (
  auth: { value: string | string[] | null; keyName: KeyName | null },
  junk: readonly [string, string][],
  hostValue: string | null,
): { headers: Record<string, string | string[]>; keyName: KeyName | null } => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of junk) headers[name] = value;
  if (hostValue !== null) headers.host = hostValue;
  if (auth.value !== null) headers.authorization = auth.value;
  return { headers, keyName: auth.value === null ? null : auth.keyName };
};

/**
 * Node's HTTP parser answers 431 with an empty body, before the application, once the request
 * line and headers pass 16 KB (any load balancer has such a limit too): generated requests stay
 * under 12 KB.
 */
const MAX_REQUEST_HEAD = 12_000;
const headSize = (request: Fuzzed): number =>
  request.path.length + Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 0);

const operationRequest = (operation: OperationName, keys: Keys): fc.Arbitrary<Fuzzed> =>
  fc
    .tuple(queryString(operation), authorization(keys), junkHeaders, host)
    .map(([query, auth, junk, hostValue]) => ({
      method: "GET",
      path: `${OPERATION_PATHS[operation]}${query}`,
      ...withHeaders(auth, junk, hostValue),
    }))
    .filter((request) => headSize(request) <= MAX_REQUEST_HEAD);

// Paths under /v1: segments are never empty (a doubled slash) nor dot segments, encoded or not.
const KNOWN_SEGMENTS = ["eventsite", "pinsite", "jobsite", "followers", "event_details", "event_details_id", "get_user_publications", "account", "v1", "v2", "api", "_next", "static", "openapi", "openapi.yaml", "health", "index", "route", "[[...path]]", "%5B%5B...path%5D%5D", "favicon.ico", "admin", "signin", "..."];

const isDotSegment = (segment: string): boolean => {
  try {
    return /^\.{1,2}$/.test(decodeURIComponent(segment));
  } catch {
    return false;
  }
};

const segment = fc
  .oneof(
    { weight: 4, arbitrary: fc.constantFrom(...KNOWN_SEGMENTS) },
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_~-]{1,16}$/) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 12 }).filter((text) => !/[/\\]/.test(text)).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom("%20", "%00", "%ff", "%C0%AE", "%252e%252e", "a%2Fb", "%E2%80%AE", "%F0%9F%8E%89", ";x", "a;b=c", "!$&'()*+,=@", ":", "%3A") },
  )
  .filter((text) => text !== "" && !isDotSegment(text) && !/%2f|%5c/i.test(text));

const OPERATION_PATH_LIST = Object.values(OPERATION_PATHS) as string[];
const DOCUMENT_PATHS = ["/v1/openapi.json", "/v1/account"];

const otherPath = (keys: Keys): fc.Arbitrary<Fuzzed> =>
  fc
    .tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.array(segment, { minLength: 0, maxLength: 5 }).map((segments) => `/v1${segments.map((text) => `/${text}`).join("")}`) },
        // An operation path with something after it, or the wrong method on the path itself.
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...OPERATION_PATH_LIST), fc.array(segment, { minLength: 1, maxLength: 2 })).map(([base, extra]) => `${base}/${extra.join("/")}`) },
        { weight: 1, arbitrary: fc.constantFrom(...OPERATION_PATH_LIST, "/v1") },
      ),
      fc.constantFrom("", "", "", "/"),
      fc.oneof({ weight: 3, arbitrary: fc.constant("") }, { weight: 1, arbitrary: queryString("followers") }),
      fc.constantFrom("GET", "GET", "GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
      authorization(keys),
      junkHeaders,
    )
    .map(([path, slash, query, method, auth, junk]) => ({ method, path: `${path}${slash}${query}`, ...withHeaders(auth, junk, null) }))
    .filter((request) => {
      const bare = (request.path.split(/[?#]/)[0] ?? "").replace(/\/$/, "");
      // GET on an operation (or a documented path) is not an "other" path: the operation campaigns cover it.
      const isOperation = OPERATION_PATH_LIST.includes(bare) || DOCUMENT_PATHS.includes(bare);
      return !(isOperation && request.method === "GET") && !DOCUMENT_PATHS.includes(bare) && headSize(request) <= MAX_REQUEST_HEAD;
    });

// ---------------------------------------------------------------------------------------------
// Running a campaign

type Result = { request: Fuzzed; answer: Answer; problems: string[] };

const describeRequest = (request: Fuzzed): string => {
  const shown = JSON.stringify(request.headers, (_name, value: unknown) =>
    typeof value === "string" && value.length > 120 ? `${value.slice(0, 120)}…(${value.length})` : value,
  );
  const path = request.path.length > 200 ? `${request.path.slice(0, 200)}…(${request.path.length})` : request.path;
  return `${request.method} ${path} ${shown}`;
};

/**
 * Failures grouped by status and first problem, with a count and the shortest request of each
 * group as its example (a poor man's shrink: the generated requests hit live servers).
 */
const summarise = (results: readonly Result[]): string[] => {
  const groups = new Map<string, { count: number; example: Result }>();
  for (const result of results) {
    const kind = `${result.answer.status} ${(result.problems[0] ?? "").replace(/\d+/g, "N").slice(0, 100)}`;
    const group = groups.get(kind);
    if (!group) groups.set(kind, { count: 1, example: result });
    else {
      group.count += 1;
      if (describeRequest(result.request).length < describeRequest(group.example.request).length) group.example = result;
    }
  }
  return [...groups.entries()].map(
    ([kind, { count, example }]) =>
      `${kind} (${count}×), e.g. ${describeRequest(example.request)} → ${example.answer.status} ${example.answer.text.slice(0, 160)} [${example.problems.join("; ")}]`,
  );
};

const runCampaign = async (
  requests: readonly Fuzzed[],
  check: (request: Fuzzed, answer: Answer) => string[],
): Promise<Result[]> =>
  mapConcurrent(requests, CONCURRENCY, async (request, index) => {
    const answer = await send(instanceFor(index).port, request.path, { method: request.method, headers: request.headers, timeoutMs: 30_000 });
    return { request, answer, problems: check(request, answer) };
  });

const issueKeys = async (label: string): Promise<Keys> => {
  const [rich, poor, slow, revoked] = await Promise.all([
    issueKey(`fuzz-${label}-rich`, { credits: 1_000_000_000, qps: 100_000 }),
    issueKey(`fuzz-${label}-poor`, { credits: 25, qps: 100_000 }),
    issueKey(`fuzz-${label}-slow`, { credits: 100_000, qps: 1 }),
    issueKey(`fuzz-${label}-revoked`, { credits: 100_000, qps: 100_000 }),
  ]);
  await database().query("UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = $1", [revoked.id]);
  return { rich, poor, slow, revoked };
};

/** Credits move only with 200s: per key, X-Credits-Charged summed = credits spent = credits of its 200 records. */
const expectCreditsFollowAnswers = async (keys: Keys, results: readonly Result[]): Promise<void> => {
  const chargedByKey: Record<KeyName, number> = { rich: 0, poor: 0, slow: 0, revoked: 0 };
  let chargedWithoutKnownKey = 0;
  for (const { request, answer } of results) {
    const charged = chargedCredits(answer);
    if (request.keyName) chargedByKey[request.keyName] += charged;
    else chargedWithoutKnownKey += charged;
  }
  expect(chargedWithoutKnownKey, "credits charged to a request without a valid token").toBe(0);
  for (const name of Object.keys(keys) as KeyName[]) {
    const ledger = await readLedger(keys[name].id);
    const spent = ledger.creditsGranted - ledger.creditsRemaining;
    expect.soft({ key: name, spent, recorded200: sumCharged(ledger.usage, (row) => row.status === 200) }).toEqual({
      key: name,
      spent: chargedByKey[name],
      recorded200: chargedByKey[name],
    });
    expect.soft(sumCharged(ledger.usage, (row) => row.status !== 200), `${name}: credits on non-200 records`).toBe(0);
  }
};

describe.skipIf(skipped())("fuzzing /v1 over 3 instances (fast-check)", () => {
  let oracle: Oracle;

  beforeAll(async () => {
    await ensureWholeCluster();
    oracle = await loadOracle(cluster().instances[0]?.port ?? 0);
    console.log(`[fuzz] seed ${SEED} (replay: FUZZ_SEED=${SEED} npx vitest run --project scale tests/scale/fuzz.test.ts)`);
  });
  afterAll(() => {
    closeAgents();
    return closeDatabase();
  });

  for (const [campaign, operation] of Object.entries(OPERATION_PATHS) as [OperationName, string][]) {
    it(`GET ${operation}: ${REQUESTS_PER_CAMPAIGN} generated requests, no 5xx, every answer as documented, credits only for 200s`, async () => {
      const keys = await issueKeys(campaign);
      const requests = fc.sample(operationRequest(campaign, keys), { numRuns: REQUESTS_PER_CAMPAIGN, seed: SEED });
      const startedAt = performance.now();
      const results = await runCampaign(requests, (_request, answer) => oracle.checkOperation(operation, answer));
      const seconds = (performance.now() - startedAt) / 1000;
      console.log(
        `[fuzz] ${operation}: ${results.length} requests in ${seconds.toFixed(1)} s (${(results.length / seconds).toFixed(0)}/s): ` +
          JSON.stringify(countStatuses(results.map((result) => result.answer))),
      );
      expect(results.length).toBeGreaterThanOrEqual(REQUESTS_PER_CAMPAIGN);
      expect.soft(summarise(results.filter((result) => result.problems.length > 0))).toEqual([]);
      await expectCreditsFollowAnswers(keys, results);
    });
  }

  /**
   * Next answers `RSC: 1` itself, before any application code, with a 307 to the same URL plus
   * `_rsc` (a cache-busting rule of the framework; load balancers should strip the header — the
   * cluster proxy does). The redirect is allowed only to that same request, and following it
   * must give the envelope. `X-Middleware-Prefetch` is stripped by proxy.ts.
   */
  const followRscRedirect = async (
    port: number,
    answer: Awaited<ReturnType<typeof send>>,
    asked: string,
    headers: Record<string, string>,
    problems: string[],
  ): Promise<Awaited<ReturnType<typeof send>>> => {
    if (answer.status !== 307) return answer;
    const location = header(answer, "location") ?? "";
    if (!location.startsWith(asked) || !location.includes("_rsc")) {
      problems.push(`${asked} → 307 to ${location}, not to the same request with _rsc`);
      return answer;
    }
    return send(port, location, { headers });
  };

  // docs/decisions.md "Envelope and headers": never HTML, a stack trace or a framework page out of /v1, whatever the input.
  it.each(FRAMEWORK_SHORTCUT_HEADERS)("framework-internal request header %s: every /v1 answer is still the envelope", async (name) => {
    const key = await issueKey(`fuzz-framework-${name}`, { credits: 1000, qps: 1000 });
    const problems: string[] = [];
    for (const [index, [operation, path]] of Object.entries(OPERATION_PATHS).entries()) {
      const query = { event_details: "url=https%3A%2F%2Fevents.demo.test%2Fevents%2F1000000000000001%2F", event_details_id: "event_id=1000000000000001", followers: "userid=2000000002", get_user_publications: "urn=urn:li:member:3000000001" }[operation as OperationName];
      for (const authorization of [`Bearer ${key.token}`, null]) {
        const headers: Record<string, string> = { [name]: "1", ...(authorization === null ? {} : { authorization }) };
        const answer = await followRscRedirect(instanceFor(index).port, await send(instanceFor(index).port, `${path}?${query}`, { headers }), `${path}?${query}`, headers, problems);
        const [problem] = oracle.checkOperation(path, answer);
        if (problem !== undefined) {
          problems.push(`GET ${path} ${authorization === null ? "without a key" : "with a key"} + ${name}: 1 → ${answer.status} ${header(answer, "location") ?? answer.text.slice(0, 40)} (${problem})`);
        }
      }
    }
    const unknown = await followRscRedirect(
      instanceFor(0).port,
      await send(instanceFor(0).port, "/v1/no-such-operation", { headers: { [name]: "1" } }),
      "/v1/no-such-operation",
      { [name]: "1" },
      problems,
    );
    const [problem] = oracle.checkOther(unknown, { status: 404, message: "Not found" });
    if (problem !== undefined) problems.push(`GET /v1/no-such-operation + ${name}: 1 → ${unknown.status} (${problem})`);
    expect(problems).toEqual([]);
  });

  it(`other paths under /v1: ${REQUESTS_PER_CAMPAIGN} generated requests, each a 404 (or 405) envelope`, async () => {
    const keys = await issueKeys("paths");
    const requests = fc.sample(otherPath(keys), { numRuns: REQUESTS_PER_CAMPAIGN, seed: SEED });
    const startedAt = performance.now();
    const results = await runCampaign(requests, (request, answer) => {
      const bare = (request.path.split(/[?#]/)[0] ?? "").replace(/\/$/, "");
      return OPERATION_PATH_LIST.includes(bare)
        ? oracle.checkOther(answer, { status: 405, message: "Method not allowed" })
        : oracle.checkOther(answer, { status: 404, message: "Not found" });
    });
    const seconds = (performance.now() - startedAt) / 1000;
    console.log(
      `[fuzz] other /v1 paths: ${results.length} requests in ${seconds.toFixed(1)} s: ${JSON.stringify(countStatuses(results.map((result) => result.answer)))}`,
    );
    expect(results.length).toBeGreaterThanOrEqual(REQUESTS_PER_CAMPAIGN);
    expect.soft(summarise(results.filter((result) => result.problems.length > 0))).toEqual([]);
    await expectCreditsFollowAnswers(keys, results);
  });
});
