import { spawn } from "node:child_process";
import path from "node:path";
import * as semconv from "@opentelemetry/semantic-conventions";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { observeStatement } from "@/lib/db/observe";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "@/tests/support/otlp-receiver";
import { ATTR } from "./attributes";
import { createSdkTracer } from "./sdk";
import { installTracer, tracingEnabled, withSpan } from "./spans";

/**
 * lib/tracing: off, nothing of the SDK is loaded and nothing is recorded (a process of its own,
 * tests/support/tracing-probe.ts, compared with the same probe turned on); on, spans reach an
 * OTLP/HTTP receiver with their parents, their failures and no more than they should carry.
 */
const ROOT = path.resolve(__dirname, "../..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
/** What the SDK is made of; @opentelemetry/api is not among them (prom-client loads it anyway). */
const SDK_PACKAGES = ["sdk-trace-base", "sdk-trace", "exporter-trace-otlp-http", "otlp-exporter-base", "otlp-transformer", "resources", "core", "context-async-hooks"];

type ProbeOutput = { started: boolean; enabled: boolean; ran: number; loaded: string[] };

const runProbe = (env: Record<string, string>): Promise<ProbeOutput> =>
  new Promise((resolve, reject) => {
    const environment: NodeJS.ProcessEnv = { ...process.env, ...env, LOG_FORMAT: "json" };
    if (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined) delete environment.OTEL_EXPORTER_OTLP_ENDPOINT;
    const child = spawn(process.execPath, [TSX_CLI, "tests/support/tracing-probe.ts"], { cwd: ROOT, env: environment });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const last = stdout.trim().split("\n").at(-1) ?? "";
      if (code !== 0) reject(new Error(`probe exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(last) as ProbeOutput);
    });
  });

const packagesOf = (files: string[]): string[] =>
  [...new Set(files.map((file) => /@opentelemetry\/([^/]+)/.exec(file)?.[1] ?? file))].sort();

let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

describe("traces off (OTEL_EXPORTER_OTLP_ENDPOINT unset)", () => {
  it("loads nothing of the SDK, records nothing, and still runs the work", async () => {
    const off = await runProbe({});
    expect(off).toMatchObject({ started: false, enabled: false, ran: 2 });
    expect(packagesOf(off.loaded).filter((name) => SDK_PACKAGES.includes(name))).toEqual([]);
    expect(receiver.spans.filter((span) => span.name === "probe")).toEqual([]);
  }, 60_000);

  it("the same probe with the endpoint set loads the SDK and exports its span with the statement inside", async () => {
    const on = await runProbe({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "tracing-probe", INSTANCE_ID: "probe-1" });
    expect(on).toMatchObject({ started: true, enabled: true, ran: 2 });
    expect(packagesOf(on.loaded)).toEqual(expect.arrayContaining(["sdk-trace-base", "exporter-trace-otlp-http", "context-async-hooks"]));
    const [probe] = await receiver.waitFor((spans) => spans.filter((span) => span.name === "probe"));
    expect(probe?.attributes).toMatchObject({ "probe.attribute": 1, "probe.later": "yes" });
    expect(probe?.resource).toMatchObject({ [ATTR.serviceName]: "tracing-probe", [ATTR.serviceInstanceId]: "probe-1" });
    const statement = receiver.spans.find((span) => span.name === "db SELECT");
    expect(statement).toMatchObject({ traceId: probe?.traceId, parentSpanId: probe?.spanId });
    expect(receiver.exports.every((received) => received.contentType?.startsWith("application/json"))).toBe(true);
    expect(receiver.refused).toEqual([]);
  }, 60_000);
});

describe("traces on, in this process", () => {
  const serviceName = "tracing-unit";
  const ours = (spans: ReceivedSpan[]) => spans.filter((span) => span.resource[ATTR.serviceName] === serviceName);
  let tracer: ReturnType<typeof createSdkTracer>;
  /** Exports what was recorded and turns traces off. */
  const flush = async () => {
    installTracer(undefined);
    await tracer.shutdown();
  };

  beforeEach(() => {
    tracer = createSdkTracer({ endpoint: `${receiver.url}/`, serviceName, serviceVersion: "0.0.0-test", instanceId: "unit-1" });
    installTracer(tracer);
  });

  afterEach(flush);

  it("records a statement inside a span as its child, with the SQL and no parameters", async () => {
    await withSpan("unit parent", {}, async () => {
      await observeStatement("postgres", "query", "SELECT id\n  FROM api_keys WHERE token_hash = $1", async () => "row");
    });
    await flush();
    const [parent] = await receiver.waitFor((spans) => ours(spans).filter((span) => span.name === "unit parent"));
    const statement = ours(receiver.spans).find((span) => span.parentSpanId === parent?.spanId);
    expect(statement).toMatchObject({ name: "db SELECT", traceId: parent?.traceId, kind: 3 });
    expect(statement?.attributes).toMatchObject({
      [ATTR.dbSystemName]: "postgresql",
      [ATTR.dbSystem]: "postgresql",
      [ATTR.dbOperationName]: "SELECT",
      [ATTR.dbQueryText]: "SELECT id FROM api_keys WHERE token_hash = $1",
      [ATTR.dbKind]: "query",
      [ATTR.dbEngine]: "postgres",
    });
    expect(parent?.resource).toMatchObject({ [ATTR.serviceVersion]: "0.0.0-test", [ATTR.serviceInstanceId]: "unit-1" });
  });

  it("marks a failed statement and its parent with the error's kind, not its message", async () => {
    const failure = Object.assign(new Error('invalid input syntax for type uuid: "secret-input-value"'), { code: "22P02" });
    await expect(
      withSpan("unit failing parent", {}, () => observeStatement("pglite", "query", "SELECT 1 WHERE $1::uuid IS NULL", () => Promise.reject(failure))),
    ).rejects.toBe(failure);
    await flush();
    const [parent] = await receiver.waitFor((spans) => ours(spans).filter((span) => span.name === "unit failing parent"));
    const statement = ours(receiver.spans).find((span) => span.parentSpanId === parent?.spanId);
    expect(statement?.status.code).toBe(2);
    expect(statement?.attributes[ATTR.errorType]).toBe("22P02");
    expect(parent?.status.code).toBe(2);
    expect(receiver.rawBodies.some((body) => body.includes("secret-input-value"))).toBe(false);
  });

  it("records no statement outside a span (the background jobs' polls) and nothing once traces are off", async () => {
    const before = receiver.exports.length;
    await observeStatement("pglite", "query", "SELECT 'background' AS poll", async () => undefined);
    await flush();
    expect(tracingEnabled()).toBe(false);
    await withSpan("after off", {}, async () => observeStatement("pglite", "query", "SELECT 2", async () => undefined));
    expect(receiver.exports.length).toBe(before);
    expect(receiver.spans.filter((span) => span.name === "after off" || span.attributes[ATTR.dbQueryText] === "SELECT 'background' AS poll")).toEqual([]);
  });

  it("names its attributes as OpenTelemetry's semantic conventions 1.45 do", () => {
    expect({
      serviceName: semconv.ATTR_SERVICE_NAME,
      serviceVersion: semconv.ATTR_SERVICE_VERSION,
      serviceInstanceId: semconv.ATTR_SERVICE_INSTANCE_ID,
      httpRequestMethod: semconv.ATTR_HTTP_REQUEST_METHOD,
      httpResponseStatusCode: semconv.ATTR_HTTP_RESPONSE_STATUS_CODE,
      httpRoute: semconv.ATTR_HTTP_ROUTE,
      httpRequestResendCount: semconv.ATTR_HTTP_REQUEST_RESEND_COUNT,
      urlPath: semconv.ATTR_URL_PATH,
      serverAddress: semconv.ATTR_SERVER_ADDRESS,
      errorType: semconv.ATTR_ERROR_TYPE,
      dbSystemName: semconv.ATTR_DB_SYSTEM_NAME,
      dbOperationName: semconv.ATTR_DB_OPERATION_NAME,
      dbQueryText: semconv.ATTR_DB_QUERY_TEXT,
    }).toEqual({
      serviceName: ATTR.serviceName,
      serviceVersion: ATTR.serviceVersion,
      serviceInstanceId: ATTR.serviceInstanceId,
      httpRequestMethod: ATTR.httpRequestMethod,
      httpResponseStatusCode: ATTR.httpResponseStatusCode,
      httpRoute: ATTR.httpRoute,
      httpRequestResendCount: ATTR.httpRequestResendCount,
      urlPath: ATTR.urlPath,
      serverAddress: ATTR.serverAddress,
      errorType: ATTR.errorType,
      dbSystemName: ATTR.dbSystemName,
      dbOperationName: ATTR.dbOperationName,
      dbQueryText: ATTR.dbQueryText,
    });
    expect(semconv.DB_SYSTEM_NAME_VALUE_POSTGRESQL).toBe("postgresql");
  });
});
