import { defaultTextMapGetter, diag, DiagLogLevel, ROOT_CONTEXT, SpanKind as OtelSpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { log } from "@/lib/log";
import { ATTR } from "./attributes";
import { errorTypeOf, NO_SPAN, type SpanAttributes, type SpanKind, type TraceSpan, type Tracer } from "./spans";

/**
 * The OpenTelemetry SDK behind lib/tracing/spans.ts, loaded (by a dynamic import in start.ts)
 * only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Spans go in batches to `${endpoint}/v1/traces` as
 * OTLP/HTTP with a JSON body (this exporter's encoding; the protobuf one is another package).
 *
 * Nothing here is registered with the global OpenTelemetry API: the context manager, the
 * propagator and the provider are ours alone. Next.js traces itself as soon as a global tracer
 * (or an active recording span in the global context) exists, and its spans carry the raw
 * request target, query string included; kept private, our request span covers Next's work
 * (its statements are children through the AsyncLocalStorage context) and no query reaches a span.
 *
 * Everything the SDK would read from OTEL_* variables (sampler, limits, batching) is given here,
 * so that only lib/env.ts decides: every span is sampled, whatever a caller's traceparent flags say.
 */
export type SdkSettings = {
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
  instanceId: string;
};

const KINDS: Record<SpanKind, OtelSpanKind> = {
  internal: OtelSpanKind.INTERNAL,
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
};

/** Attribute values of at most 4 KB (a long statement's text is cut there). */
const MAX_ATTRIBUTE_CHARS = 4096;
const EXPORT_EVERY_MS = 2000;
/** A collector that is down says so in the log once a minute, not once per export. */
const WARN_EVERY_MS = 60_000;

const present = (attributes: SpanAttributes): Attributes => {
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== null && value !== undefined) kept[name] = value;
  return kept;
};

const handleOf = (span: Span): TraceSpan => ({
  setAttributes: (attributes) => span.setAttributes(present(attributes)),
  fail: (errorType) => {
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  },
});

const exportProblems = () => {
  let lastAt = 0;
  const report = (message: string) => {
    const now = Date.now();
    if (now - lastAt < WARN_EVERY_MS) return;
    lastAt = now;
    log.warn("traces: the exporter reported a problem (spans may be lost)", { problem: message.slice(0, 300) });
  };
  return {
    error: report,
    warn: report,
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
};

export const createSdkTracer = (settings: SdkSettings): Tracer => {
  diag.setLogger(exportProblems(), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  const exporter = new OTLPTraceExporter({ url: `${settings.endpoint.replace(/\/+$/, "")}/v1/traces`, timeoutMillis: 10_000 });
  const limits = {
    attributeCountLimit: 128,
    attributeValueLengthLimit: MAX_ATTRIBUTE_CHARS,
    eventCountLimit: 128,
    linkCountLimit: 128,
    attributePerEventCountLimit: 128,
    attributePerLinkCountLimit: 128,
  };
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        [ATTR.serviceName]: settings.serviceName,
        [ATTR.serviceVersion]: settings.serviceVersion,
        [ATTR.serviceInstanceId]: settings.instanceId,
      }),
    ),
    sampler: new AlwaysOnSampler(),
    generalLimits: { attributeCountLimit: limits.attributeCountLimit, attributeValueLengthLimit: limits.attributeValueLengthLimit },
    spanLimits: limits,
    spanProcessors: [
      new BatchSpanProcessor(exporter, { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: EXPORT_EVERY_MS, exportTimeoutMillis: 30_000 }),
    ],
  });
  const tracer = provider.getTracer("social-lookup", settings.serviceVersion);

  return {
    withSpan: async (name, attributes, work, options) => {
      const active = contextManager.active();
      const parent = options.parent ?? "active";
      if (parent === "required" && trace.getSpan(active)?.isRecording() !== true) return work(NO_SPAN);
      const parentContext = parent === "none" ? ROOT_CONTEXT : active;
      const span = tracer.startSpan(name, { kind: KINDS[options.kind ?? "internal"], attributes: present(attributes) }, parentContext);
      const handle = handleOf(span);
      try {
        return await contextManager.with(trace.setSpan(parentContext, span), () => work(handle));
      } catch (error) {
        handle.fail(errorTypeOf(error));
        throw error;
      } finally {
        span.end();
      }
    },

    startRequestSpan: (method, headers) => {
      const parentContext = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(method, { kind: OtelSpanKind.SERVER, attributes: { [ATTR.httpRequestMethod]: method } }, parentContext);
      const context = trace.setSpan(parentContext, span);
      return {
        run: (handle) => contextManager.with(context, handle),
        end: (name, attributes, errorType) => {
          span.updateName(name);
          span.setAttributes(present(attributes));
          if (errorType !== null) handleOf(span).fail(errorType);
          span.end();
        },
      };
    },

    shutdown: async () => {
      await provider.shutdown();
      contextManager.disable();
    },
  };
};
