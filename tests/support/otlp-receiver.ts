import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

/**
 * An OpenTelemetry collector's OTLP/HTTP traces endpoint, in process, for tests: node:http on
 * 127.0.0.1, POST /v1/traces with a JSON ExportTraceServiceRequest (gzip or not), answered as a
 * collector does (200 and an empty ExportTraceServiceResponse). Anything else is refused (and
 * counted in `refused`), so a test that expects no refusals notices an exporter speaking
 * protobuf or posting elsewhere. Every span received is kept, flattened with its resource.
 */
export type AttributeValue = string | number | boolean | null | AttributeValue[];
export type Attributes = Record<string, AttributeValue>;

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  /** null for a root span. */
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Attributes;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string | null };
  resource: Attributes;
  startNs: bigint;
  endNs: bigint;
};

export type ReceivedExport = { contentType: string | null; contentEncoding: string | null; spans: number };

export type OtlpReceiver = {
  /** The collector's base address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  exports: ReceivedExport[];
  /** Requests that were not a valid export: method, path and why. */
  refused: string[];
  /** Every request body as it arrived (decompressed): what a scan for secrets reads. */
  rawBodies: string[];
  /** Resolves with the spans `select` picks once it picks at least one (polling), or throws after `timeoutMs`. */
  waitFor(select: (spans: ReceivedSpan[]) => ReceivedSpan[], timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
};

type OtlpAnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
};
type OtlpKeyValue = { key: string; value?: OtlpAnyValue };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const arrayOf = (value: unknown, what: string): unknown[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${what} is not an array`);
  return value;
};

const valueOf = (value: OtlpAnyValue | undefined): AttributeValue => {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
};

const attributesOf = (list: unknown, what: string): Attributes => {
  const attributes: Attributes = {};
  for (const entry of arrayOf(list, what)) {
    if (!isRecord(entry) || typeof entry.key !== "string") throw new Error(`${what}: an attribute without a key`);
    attributes[entry.key] = valueOf((entry as OtlpKeyValue).value);
  }
  return attributes;
};

/** OTLP/JSON carries ids as hex (the protobuf JSON mapping's base64 is not OTLP's). */
const idOf = (value: unknown, length: number, what: string): string => {
  if (typeof value !== "string" || !new RegExp(`^[0-9a-f]{${length}}$`).test(value)) throw new Error(`${what} is not ${length} hex digits: ${String(value)}`);
  return value;
};

export const parseExportRequest = (body: string): ReceivedSpan[] => {
  const request: unknown = JSON.parse(body);
  if (!isRecord(request)) throw new Error("the body is not an ExportTraceServiceRequest object");
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of arrayOf(request.resourceSpans, "resourceSpans")) {
    if (!isRecord(resourceSpans)) throw new Error("a resourceSpans entry is not an object");
    const resource = attributesOf(isRecord(resourceSpans.resource) ? resourceSpans.resource.attributes : undefined, "resource");
    for (const scopeSpans of arrayOf(resourceSpans.scopeSpans, "scopeSpans")) {
      if (!isRecord(scopeSpans)) throw new Error("a scopeSpans entry is not an object");
      for (const span of arrayOf(scopeSpans.spans, "spans")) {
        if (!isRecord(span) || typeof span.name !== "string") throw new Error("a span without a name");
        const status = isRecord(span.status) ? span.status : {};
        spans.push({
          traceId: idOf(span.traceId, 32, "traceId"),
          spanId: idOf(span.spanId, 16, "spanId"),
          parentSpanId: span.parentSpanId === undefined || span.parentSpanId === "" ? null : idOf(span.parentSpanId, 16, "parentSpanId"),
          name: span.name,
          kind: typeof span.kind === "number" ? span.kind : 0,
          attributes: attributesOf(span.attributes, `span ${span.name}`),
          status: { code: typeof status.code === "number" ? status.code : 0, message: typeof status.message === "string" ? status.message : null },
          resource,
          startNs: BigInt(String(span.startTimeUnixNano ?? 0)),
          endNs: BigInt(String(span.endTimeUnixNano ?? 0)),
        });
      }
    }
  }
  return spans;
};

const readBody = (request: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });

export const startOtlpReceiver = async (): Promise<OtlpReceiver> => {
  const spans: ReceivedSpan[] = [];
  const exports: ReceivedExport[] = [];
  const refused: string[] = [];
  const rawBodies: string[] = [];

  const server = http.createServer((request, response) => {
    void (async () => {
      const refuse = (status: number, why: string) => {
        refused.push(`${request.method ?? "?"} ${request.url ?? "?"}: ${why}`);
        response.writeHead(status, { "Content-Type": "text/plain" });
        response.end(why);
      };
      const body = await readBody(request);
      if (request.method !== "POST" || request.url !== "/v1/traces") return refuse(404, "not the traces endpoint");
      const contentType = request.headers["content-type"] ?? null;
      if (contentType === null || !contentType.startsWith("application/json")) return refuse(415, `content type ${contentType ?? "(none)"}`);
      const encoding = request.headers["content-encoding"] ?? null;
      let text: string;
      try {
        text = (encoding === "gzip" ? zlib.gunzipSync(body) : body).toString("utf8");
      } catch {
        return refuse(400, "body does not decompress");
      }
      rawBodies.push(text);
      let received: ReceivedSpan[];
      try {
        received = parseExportRequest(text);
      } catch (error) {
        return refuse(400, error instanceof Error ? error.message : String(error));
      }
      spans.push(...received);
      exports.push({ contentType, contentEncoding: encoding, spans: received.length });
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end("{}");
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const waitFor = async (select: (spans: ReceivedSpan[]) => ReceivedSpan[], timeoutMs = 15_000): Promise<ReceivedSpan[]> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const picked = select(spans);
      if (picked.length > 0) return picked;
      if (Date.now() > deadline) throw new Error(`no such span within ${timeoutMs} ms (${spans.length} spans received: ${[...new Set(spans.map((span) => span.name))].join(", ")})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports,
    refused,
    rawBodies,
    waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
