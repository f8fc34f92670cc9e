import client from "prom-client";
import { describe, expect, it } from "vitest";
import { lintExposition } from "@/tests/support/prom-lint";
import { collectProcessMetrics, DROPPED_PROCESS_METRICS, exposition, metrics } from "./registry";

/**
 * An operator's CI runs `promtool check metrics` on a scrape; it exits 3 on any naming problem.
 * The scrape this process serves (our metrics, moved so that every labelled series is there, and
 * Node.js's own) passes promtool's rules (tests/support/prom-lint.ts, the same rules written out).
 */
describe("the scrape as promtool checks it", () => {
  it("has no naming problem: counters end in _total and nothing else does, no reserved suffix or label, base units", async () => {
    collectProcessMetrics();
    const moved = metrics();
    moved.requests.inc({ channel: "api", operation: "followers", status: "200" });
    moved.requestDuration.observe({ channel: "api", operation: "followers" }, 0.02);
    moved.upstreamDuration.observe({ operation: "followers" }, 0.2);
    moved.dbStatementDuration.observe({ database: "pglite", kind: "query" }, 0.001);
    moved.batches.set({ state: "queued" }, 2);
    moved.buildInfo.set({ version: "1.0.0", node: process.version }, 1);
    moved.httpRequests.inc({ area: "v1", status_class: "2xx" });
    // The event loop and GC figures are read at collection: give them a moment to have some.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { body } = await exposition();
    expect(body).toContain("nodejs_eventloop_lag_seconds");
    expect(body).toContain("nodejs_active_handles ");
    expect(lintExposition(body)).toEqual([]);
    for (const name of DROPPED_PROCESS_METRICS) expect(body).not.toContain(`# TYPE ${name} `);
  });

  it("reports what promtool reports on prom-client's defaults as they come: gauges named _total", async () => {
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
    const problems = lintExposition(await registry.metrics());
    expect([...problems].sort()).toEqual(DROPPED_PROCESS_METRICS.map((name) => `${name} non-counter metrics should not have "_total" suffix`).sort());
  });

  it("applies each of promtool's naming rules", () => {
    const text = [
      "# HELP good_requests_total Fine.",
      "# TYPE good_requests_total counter",
      "good_requests_total 1",
      "# HELP lookups Counter without _total.",
      "# TYPE lookups counter",
      "lookups 1",
      "# TYPE open_total gauge",
      "open_total 1",
      "# HELP wait_milliseconds Not a base unit.",
      "# TYPE wait_milliseconds gauge",
      "wait_milliseconds 1",
      "# HELP queue_count Reserved suffix.",
      "# TYPE queue_count gauge",
      "queue_count 1",
      '# HELP ratio Quantile label on a gauge.',
      "# TYPE ratio gauge",
      'ratio{quantile="0.5",httpCode="200"} 1',
      "# HELP lag_ms Abbreviated unit.",
      "# TYPE lag_ms gauge",
      "lag_ms 1",
      "# HELP pool_gauge_size Type in the name.",
      "# TYPE pool_gauge_size gauge",
      "pool_gauge_size 1",
      "# HELP latency_seconds A histogram's parts are its own.",
      "# TYPE latency_seconds histogram",
      'latency_seconds_bucket{le="+Inf"} 1',
      "latency_seconds_sum 1",
      "latency_seconds_count 1",
    ].join("\n");
    expect(lintExposition(text)).toEqual([
      'lookups counter metrics should have "_total" suffix',
      "open_total no help text",
      'open_total non-counter metrics should not have "_total" suffix',
      'wait_milliseconds use base unit "seconds" instead of "milliseconds"',
      'queue_count non-histogram and non-summary metrics should not have "_count" suffix',
      'ratio non-summary metrics should not have "quantile" label',
      "ratio label names should be written in 'snake_case' not 'camelCase'",
      "lag_ms metric names should not contain abbreviated units",
      "pool_gauge_size metric name should not include type 'gauge'",
    ]);
  });
});
