import type { IncomingHttpHeaders } from "node:http";

/**
 * The spans the code opens: one per HTTP request (lib/front), database statement (lib/db) and
 * upstream provider call (lib/connectors), one per batch lookup (lib/api/batch-lookup.ts).
 *
 * Traces are optional. With OTEL_EXPORTER_OTLP_ENDPOINT unset nothing of OpenTelemetry is loaded
 * (this file imports types only) and each helper is one check of an unset slot, then a straight
 * call of the work. With it set, lib/tracing/start.ts installs the SDK's tracer (lib/tracing/sdk.ts)
 * in that slot.
 *
 * The slot is on globalThis: Next loads a module once per route bundle, and the console's routes,
 * the batch runner (started by instrumentation) and the process front must all find the one
 * tracer that server.ts installed.
 */
export type AttributeValue = string | number | boolean;
/** null and undefined are left out. Never a token, a query value or a record's text. */
export type SpanAttributes = Readonly<Record<string, AttributeValue | null | undefined>>;

export type TraceSpan = {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed without a throw (e.g. a 5xx answer); `errorType` is a kind, never a message. */
  fail(errorType: string): void;
};

export type SpanKind = "internal" | "server" | "client";

/**
 * active: a child of the active span, or a trace of its own without one.
 * required: only as a child of an active span still in progress (no trace per background statement,
 *   none for work a request left running after its answer).
 * none: always a trace of its own (a batch lookup: the runner may have been woken inside a request).
 */
export type SpanParent = "active" | "required" | "none";

export type SpanOptions = { kind?: SpanKind; parent?: SpanParent };

/** The span of one HTTP request, named when the answer is known. */
export type RequestSpan = {
  /** Runs `handle` with this span active: what it does (statements, provider calls) becomes its children. */
  run<T>(handle: () => T): T;
  /** `errorType` marks it failed (a 5xx); null leaves its status unset. */
  end(name: string, attributes: SpanAttributes, errorType: string | null): void;
};

export type Tracer = {
  withSpan<T>(name: string, attributes: SpanAttributes, work: (span: TraceSpan) => Promise<T>, options: SpanOptions): Promise<T>;
  /** `headers` may carry a caller's W3C traceparent: the request span continues that trace. */
  startRequestSpan(method: string, headers: IncomingHttpHeaders): RequestSpan;
  /** Exports what is buffered, then stops exporting. */
  shutdown(): Promise<void>;
};

const holder = globalThis as typeof globalThis & { __socialLookupTracer?: Tracer };

export const NO_SPAN: TraceSpan = { setAttributes: () => undefined, fail: () => undefined };

/** Set by lib/tracing/start.ts only. */
export const installTracer = (tracer: Tracer | undefined): void => {
  holder.__socialLookupTracer = tracer;
};

export const installedTracer = (): Tracer | undefined => holder.__socialLookupTracer;

/** Whether spans are recorded: callers that would build attributes check this first. */
export const tracingEnabled = (): boolean => holder.__socialLookupTracer !== undefined;

/** Runs `work` inside a span (off: just runs it). A throw marks the span failed with the error's kind. */
export const withSpan = <T>(
  name: string,
  attributes: SpanAttributes,
  work: (span: TraceSpan) => Promise<T>,
  options: SpanOptions = {},
): Promise<T> => {
  const tracer = holder.__socialLookupTracer;
  return tracer === undefined ? work(NO_SPAN) : tracer.withSpan(name, attributes, work, options);
};

/** The span of a request that just arrived, or null with traces off. */
export const startRequestSpan = (method: string, headers: IncomingHttpHeaders): RequestSpan | null =>
  holder.__socialLookupTracer?.startRequestSpan(method, headers) ?? null;

/**
 * What kind of failure an error is, for `error.type`: a code it carries (a PostgreSQL SQLSTATE, a
 * DomainError's code) or its class name. Never its message: messages can quote inputs.
 */
export const errorTypeOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    if ("code" in error && typeof error.code === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(error.code)) return error.code;
    if (error instanceof Error) return error.name;
  }
  return "Error";
};
