import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEvents } from "@/lib/demo/events";
import { ATTR } from "@/lib/tracing/attributes";
import { startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { consoleClient } from "./console-client";
import { API_DATABASES, createKeyWithCli, delay, findPostgres, isUnavailable, randomSecret, type ApiTarget, type IssuedKey, type TargetKind } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * Traces on servers of their own (the embedded database and PostgreSQL) with
 * OTEL_EXPORTER_OTLP_ENDPOINT at an in-process OTLP/HTTP receiver and a stand-in upstream
 * provider as the data source: a /v1 lookup is one request span carrying the answer's
 * X-Request-Id, with its statements and its provider call as descendants in the same trace; a
 * caller's traceparent is continued; failures are marked; console routes (Next) and batch
 * lookups have their spans too; a data subject in a console path is templated as in the request
 * log; no exported byte holds a token, a provider key, an input or a subject's identifier.
 */
const PROVIDER_KEY = "traces-provider-key-do-not-export";
const OPERATION_PATH = "/v1/eventsite/event_details_id";
const ROOT = path.resolve(__dirname, "../..");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

type Traced = { kind: TargetKind; target: ApiTarget; key: IssuedKey; dropSchema: (() => Promise<void>) | null };

const traced: Traced[] = [];
let receiver: OtlpReceiver;
let provider: FakeProvider;
/** Every input a test sent, for the scan of what was exported. */
const inputs = new Set<string>();
let nextEvent = 4_700_000_000_000_001;

/** A new event the provider knows (so each lookup of it is a cache miss: a provider call). */
const newEvent = (): string => {
  const [template] = generateEvents("http://127.0.0.1");
  if (!template) throw new Error("no demo event");
  const eventId = String(nextEvent++);
  provider.events.set(eventId, { ...template, event_id: eventId, related_events: [] });
  inputs.add(eventId);
  return eventId;
};

const startTraced = async (kind: TargetKind): Promise<Traced | null> => {
  let databaseUrl: string | undefined;
  let dropSchema: (() => Promise<void>) | null = null;
  if (kind === "postgres") {
    const admin = await findPostgres();
    if (isUnavailable(admin)) return null;
    const schema = `sl_traces_${randomSecret(8).toLowerCase().replace(/[^a-z0-9]/g, "x")}`;
    const client = await admin.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
    databaseUrl = `postgresql://${encodeURIComponent(admin.user)}@127.0.0.1:5432/test?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    dropSchema = async () => {
      const dropper = await admin.connect();
      await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await dropper.end();
    };
  }
  let key: IssuedKey | undefined;
  const target = await startOwnServer({
    label: `traces-${kind}`,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    env: {
      DATA_SOURCE: "upstream",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_API_KEY: PROVIDER_KEY,
      UPSTREAM_RETRIES: "1",
      UPSTREAM_MAX_RETRY_WAIT_MS: "50",
      UPSTREAM_TIMEOUT_MS: "3000",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "social-lookup-traces",
      INSTANCE_ID: `traces-${kind}`,
    },
    beforeStart: async (server) => {
      key = await createKeyWithCli(server, `traces-${kind}`, { credits: 100_000, qps: 100 });
    },
  });
  if (key === undefined) throw new Error("no key was issued");
  return { kind, target, key, dropSchema };
};

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  provider = await startFakeProvider();
  provider.keys.set(PROVIDER_KEY, 10_000_000);
  const started = await Promise.allSettled(API_DATABASES.map(startTraced));
  for (const result of started) if (result.status === "fulfilled" && result.value !== null) traced.push(result.value);
  const failed = started.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
}, 300_000);

afterAll(async () => {
  for (const { target, dropSchema } of traced) {
    await stopOwnServer(target);
    await dropSchema?.();
  }
  await provider?.close();
  await receiver?.close();
});

const lookup = async (server: Traced, eventId: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.target.baseUrl}${OPERATION_PATH}?event_id=${eventId}`, {
    headers: { Authorization: `Bearer ${server.key.token}`, ...headers },
  });
  await response.arrayBuffer();
  const requestId = response.headers.get("x-request-id");
  if (requestId === null) throw new Error(`no X-Request-Id on a ${response.status}`);
  return { status: response.status, requestId };
};

const ofServer = (server: Traced) => (spans: ReceivedSpan[]) => spans.filter((span) => span.resource[ATTR.serviceInstanceId] === `traces-${server.kind}`);

/** The request span whose social_lookup.request_id is `requestId`. */
const requestSpan = async (server: Traced, requestId: string): Promise<ReceivedSpan> => {
  const [span] = await receiver.waitFor((spans) => ofServer(server)(spans).filter((span) => span.kind === 2 && span.attributes[ATTR.requestId] === requestId));
  if (span === undefined) throw new Error("unreachable");
  return span;
};

/** Spans of `root`'s trace below it (any depth). */
const descendants = (root: ReceivedSpan): ReceivedSpan[] => {
  const inTrace = receiver.spans.filter((span) => span.traceId === root.traceId);
  const byId = new Map(inTrace.map((span) => [span.spanId, span]));
  const below = (span: ReceivedSpan): boolean => {
    let parent = span.parentSpanId === null ? undefined : byId.get(span.parentSpanId);
    for (let depth = 0; parent !== undefined && depth < 50; depth += 1) {
      if (parent.spanId === root.spanId) return true;
      parent = parent.parentSpanId === null ? undefined : byId.get(parent.parentSpanId);
    }
    return false;
  };
  return inTrace.filter(below);
};

const statementsOf = (spans: ReceivedSpan[]) => spans.filter((span) => span.attributes[ATTR.dbSystemName] === "postgresql");
const upstreamCallsOf = (spans: ReceivedSpan[]) => spans.filter((span) => span.name === `upstream GET ${OPERATION_PATH}`);

describe(`GET ${OPERATION_PATH} with traces on`, () => {
  it("is one request span carrying the answer's X-Request-Id, its statements and its provider call below it in the same trace", async () => {
    for (const server of traced) {
      const answer = await lookup(server, newEvent());
      expect(answer.status).toBe(200);
      const span = await requestSpan(server, answer.requestId);
      expect(span).toMatchObject({ name: `GET ${OPERATION_PATH}`, kind: 2, parentSpanId: null, status: { code: 0 } });
      expect(span.attributes).toMatchObject({
        [ATTR.httpRequestMethod]: "GET",
        [ATTR.urlPath]: OPERATION_PATH,
        [ATTR.httpRoute]: OPERATION_PATH,
        [ATTR.httpResponseStatusCode]: 200,
        [ATTR.operation]: "event_details_id",
        [ATTR.channel]: "api",
        [ATTR.keyId]: server.key.id,
      });
      expect(span.resource).toMatchObject({
        [ATTR.serviceName]: "social-lookup-traces",
        [ATTR.serviceVersion]: VERSION,
        [ATTR.serviceInstanceId]: `traces-${server.kind}`,
      });

      const below = descendants(span);
      const statements = statementsOf(below);
      expect(statements.length, `${server.kind}: statements of the lookup`).toBeGreaterThan(0);
      for (const statement of statements) {
        expect(statement.kind).toBe(3);
        expect(statement.attributes[ATTR.dbEngine]).toBe(server.kind);
        expect(statement.startNs).toBeGreaterThanOrEqual(span.startNs);
      }
      expect(statements.some((statement) => typeof statement.attributes[ATTR.dbQueryText] === "string")).toBe(true);

      const [call, ...more] = upstreamCallsOf(below);
      expect(more).toEqual([]);
      expect(call).toMatchObject({ kind: 3, status: { code: 0 } });
      expect(call?.attributes).toMatchObject({
        [ATTR.urlPath]: OPERATION_PATH,
        [ATTR.httpResponseStatusCode]: 200,
        [ATTR.httpRequestResendCount]: 0,
        [ATTR.upstreamOutcome]: "data",
      });
    }
  });

  it("continues a caller's trace from its traceparent header, and starts its own for a malformed one", async () => {
    for (const server of traced) {
      const traceId = randomHex(32);
      const callerSpanId = randomHex(16);
      const continued = await lookup(server, newEvent(), { traceparent: `00-${traceId}-${callerSpanId}-01` });
      const span = await requestSpan(server, continued.requestId);
      expect(span).toMatchObject({ traceId, parentSpanId: callerSpanId });
      expect(statementsOf(descendants(span)).length).toBeGreaterThan(0);

      const malformed = await lookup(server, newEvent(), { traceparent: `00-${traceId}-not-a-span-01` });
      const own = await requestSpan(server, malformed.requestId);
      expect(own.parentSpanId).toBeNull();
      expect(own.traceId).not.toBe(traceId);
    }
  });

  it("counts a provider retry on the call's span, and marks a failed call and its 500 as errors", async () => {
    for (const server of traced) {
      provider.queue({ status: 503 });
      const retried = await lookup(server, newEvent());
      expect(retried.status).toBe(200);
      const [retriedCall] = upstreamCallsOf(descendants(await requestSpan(server, retried.requestId)));
      expect(retriedCall?.attributes).toMatchObject({ [ATTR.httpRequestResendCount]: 1, [ATTR.httpResponseStatusCode]: 200, [ATTR.upstreamOutcome]: "data" });

      provider.always({ status: 500 });
      let failed: { status: number; requestId: string };
      try {
        failed = await lookup(server, newEvent());
      } finally {
        provider.always(null);
      }
      expect(failed.status).toBe(500);
      const span = await requestSpan(server, failed.requestId);
      expect(span.status.code).toBe(2);
      expect(span.attributes).toMatchObject({ [ATTR.httpResponseStatusCode]: 500, [ATTR.errorType]: "500" });
      const [call] = upstreamCallsOf(descendants(span));
      expect(call?.status.code).toBe(2);
      expect(call?.attributes).toMatchObject({ [ATTR.httpResponseStatusCode]: 500, [ATTR.httpRequestResendCount]: 1, [ATTR.errorType]: "UpstreamUnavailableError" });
    }
  });
});

describe("other requests with traces on", () => {
  it("names a console route by what it is, not by its path, with the statements Next's route handler ran below it", async () => {
    for (const server of traced) {
      const response = await fetch(`${server.target.baseUrl}/api/health?probe=${randomHex(8)}`);
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      const [span] = await receiver.waitFor((spans) =>
        ofServer(server)(spans).filter((candidate) => candidate.kind === 2 && candidate.attributes[ATTR.urlPath] === "/api/health" && descendants(candidate).length > 0),
      );
      expect(span?.name).toBe("GET /api/*");
      expect(span?.attributes).toMatchObject({ [ATTR.channel]: "console", [ATTR.httpResponseStatusCode]: 200 });
      expect(span?.attributes[ATTR.httpRoute]).toBeUndefined();
      expect(statementsOf(descendants(span as ReceivedSpan)).length).toBeGreaterThan(0);
    }
  });

  it("makes each batch lookup a trace of its own with its request id, its statements and provider call below it", async () => {
    for (const server of traced) {
      const batchInputs = [newEvent(), newEvent()];
      const created = await fetch(`${server.target.baseUrl}/v1/batches`, {
        method: "POST",
        headers: { Authorization: `Bearer ${server.key.token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ operation: "event_details_id", inputs: batchInputs }),
      });
      expect(created.status).toBe(202);
      const id = ((await created.json()) as { data: { id: string } }).data.id;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const progress = await fetch(`${server.target.baseUrl}/v1/batches/${id}`, { headers: { Authorization: `Bearer ${server.key.token}` } });
        const view = (await progress.json()) as { data: { status: string } };
        if (view.data.status === "done") break;
        if (Date.now() > deadline) throw new Error(`batch not done: ${JSON.stringify(view)}`);
        await delay(200);
      }
      const isBatchLookup = (span: ReceivedSpan) => span.name === `batch lookup ${OPERATION_PATH}` && span.attributes[ATTR.channel] === "batch";
      const lookups = await receiver.waitFor((spans) => {
        const found = ofServer(server)(spans).filter(isBatchLookup);
        return found.length >= batchInputs.length ? found : [];
      });
      expect(new Set(lookups.map((span) => span.attributes[ATTR.requestId])).size).toBe(lookups.length);
      for (const span of lookups) {
        expect(span.parentSpanId).toBeNull();
        expect(span.attributes).toMatchObject({ [ATTR.operation]: "event_details_id", [ATTR.httpResponseStatusCode]: 200, [ATTR.keyId]: server.key.id });
        expect(span.attributes[ATTR.requestId]).toMatch(/^[0-9a-f-]{36}$/);
        expect(statementsOf(descendants(span)).length).toBeGreaterThan(0);
        expect(upstreamCallsOf(descendants(span))).toHaveLength(1);
      }
      const routes = ofServer(server)(receiver.spans).filter((span) => span.kind === 2 && String(span.attributes[ATTR.urlPath]).startsWith("/v1/batches"));
      expect(routes.map((span) => span.name)).toEqual(expect.arrayContaining(["POST /v1/batches", "GET /v1/batches/{id}"]));
      expect(routes.every((span) => !span.name.includes(id))).toBe(true);
    }
  });

  it("records an admin's subject download with the subject templated in url.path, as the request log has it", async () => {
    for (const server of traced) {
      const subject = `urn:li:member:47${String(nextEvent++).slice(-8)}`;
      inputs.add(subject);
      inputs.add(encodeURIComponent(subject));
      const client = consoleClient(server.target);
      const admin = await client.admin();
      const answer = await client.api(admin, "GET", `/api/admin/subjects/profile/${subject}?probe=${randomHex(8)}`);
      expect(answer.status, answer.text).toBe(200);
      const [span] = await receiver.waitFor((spans) =>
        ofServer(server)(spans).filter((candidate) => candidate.kind === 2 && candidate.attributes[ATTR.urlPath] === "/api/admin/subjects/profile/:subject"),
      );
      expect(span?.name).toBe("GET /api/*");
      expect(span?.attributes).toMatchObject({ [ATTR.channel]: "console", [ATTR.httpResponseStatusCode]: 200 });
      const trace = [span, ...descendants(span as ReceivedSpan)].map((each) => ({ name: each?.name, attributes: each?.attributes }));
      expect(trace.length).toBeGreaterThan(1);
      expect(JSON.stringify(trace)).not.toContain(subject);
    }
  });

  it("exports no token, provider key, input, subject or query string, in any span or resource", async () => {
    expect(receiver.refused).toEqual([]);
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((received) => received.contentType?.startsWith("application/json"))).toBe(true);
    const exported = receiver.rawBodies.join("\n");
    const secrets = [PROVIDER_KEY, ...traced.map(({ key }) => key.token), ...inputs, "event_id=", "probe="];
    expect(secrets.filter((secret) => exported.includes(secret))).toEqual([]);
    for (const span of receiver.spans) {
      expect(span.name).not.toContain("?");
      const path = span.attributes[ATTR.urlPath];
      if (typeof path === "string") expect(path).not.toContain("?");
    }
  });
});

const randomHex = (length: number): string => {
  let hex = "";
  while (hex.length < length) hex += Math.floor(Math.random() * 16).toString(16);
  return hex.replace(/^0+$/, "1".padEnd(length, "0"));
};
