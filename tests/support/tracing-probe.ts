import { createRequire } from "node:module";
import { observeStatement } from "@/lib/db/observe";
import { tracingEnabled, withSpan } from "@/lib/tracing/spans";
import { startTracing, stopTracing } from "@/lib/tracing/start";

/**
 * Run by lib/tracing/tracing.test.ts in a process of its own (tsx): starts tracing as server.ts
 * does, runs a span with a statement inside it, flushes, and prints what it saw as one JSON line,
 * with every OpenTelemetry module the process has loaded by then.
 */
const started = await startTracing();
let ran = 0;
await withSpan("probe", { "probe.attribute": 1 }, async (span) => {
  span.setAttributes({ "probe.later": "yes" });
  await observeStatement("pglite", "query", "SELECT 1", async () => {
    ran += 1;
  });
  ran += 1;
});
const enabled = tracingEnabled();
await stopTracing();
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("@opentelemetry"));
console.log(JSON.stringify({ started, enabled, ran, loaded }));
