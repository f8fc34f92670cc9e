import { describe, expect, it } from "vitest";
import { createMetrics, METRIC_PREFIX } from "./registry";

/** The registry's two modes: counting, and METRICS=off's metrics that do nothing. */
const valuesOf = async (metrics: ReturnType<typeof createMetrics>, name: string) => {
  const metric = metrics.registry.getSingleMetric(`${METRIC_PREFIX}${name}`);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  return (await metric.get()).values;
};

describe("metrics registry", () => {
  it("counts, observes and sets when on", async () => {
    const metrics = createMetrics(true);
    metrics.requests.inc({ channel: "api", operation: "followers", status: "200" });
    metrics.requests.labels({ channel: "api", operation: "followers", status: "200" }).inc();
    metrics.requestDuration.observe({ channel: "api", operation: "followers" }, 0.02);
    metrics.ready.set(1);
    expect(await valuesOf(metrics, "requests_total")).toEqual([
      { value: 2, labels: { channel: "api", operation: "followers", status: "200" } },
    ]);
    expect((await valuesOf(metrics, "request_duration_seconds")).find((value) => "metricName" in value && String(value.metricName).endsWith("_count"))?.value).toBe(1);
    expect((await valuesOf(metrics, "ready"))[0]?.value).toBe(1);
  });

  it("with METRICS=off, has the same metrics and names whose methods keep nothing and read no label", async () => {
    const on = createMetrics(true);
    const off = createMetrics(false);
    expect(off.enabled).toBe(false);
    expect(off.registry.getMetricsAsArray().map((metric) => metric.name)).toEqual(on.registry.getMetricsAsArray().map((metric) => metric.name));

    off.requests.inc({ channel: "api", operation: "followers", status: "200" });
    off.requests.labels({ channel: "api", operation: "followers", status: "200" }).inc();
    off.creditsCharged.inc({ channel: "api", operation: "followers" }, 2);
    off.requestDuration.observe({ channel: "api", operation: "followers" }, 0.02);
    off.requestDuration.labels({ channel: "api", operation: "followers" }).observe(0.02);
    off.ready.set(1);
    off.openConnections.inc();
    off.openConnections.dec();
    expect(off.dbStatementDuration.startTimer()()).toBe(0);
    // A label the metric does not have throws when on (prom-client validates it); off, it is never read.
    expect(() => on.refusals.labels({ channel: "api", reason: "401", keyId: "k" } as never).inc()).toThrow();
    expect(() => off.refusals.labels({ channel: "api", reason: "401", keyId: "k" } as never).inc()).not.toThrow();

    expect(await valuesOf(off, "requests_total")).toEqual([]);
    expect(await valuesOf(off, "credits_charged_total")).toEqual([]);
    expect((await valuesOf(off, "request_duration_seconds")).every((value) => value.value === 0)).toBe(true);
    expect((await valuesOf(off, "ready"))[0]?.value ?? 0).toBe(0);
    expect((await valuesOf(off, "open_connections"))[0]?.value ?? 0).toBe(0);
  });
});
