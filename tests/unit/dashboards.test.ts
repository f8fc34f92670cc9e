import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { exportedMetricNames } from "@/lib/metrics/registry";

/**
 * The dashboard and the alert rules in deploy/ may name only metrics the service exports: a
 * renamed metric would leave a panel empty and an alert silent. Every PromQL expression's metric
 * names are extracted and checked against the registry (Node's own metrics included, which
 * collectProcessMetrics adds); each rule must carry what an operator needs to act on it.
 */
const root = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** PromQL words that are not metric names. */
const KEYWORDS = new Set(["and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset"]);

/** Series Prometheus makes itself for each target: no application exports them. */
const PROMETHEUS_SERIES = new Set(["up", "scrape_duration_seconds", "scrape_samples_scraped"]);

/** The metric names a PromQL expression reads (a histogram's series as they are written, _bucket and all). */
const metricNamesIn = (expr: string): string[] => {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.$])([A-Za-z_:][\w:]*)(?!\w)(\s*\()?/g)) {
    const [, word, call] = match;
    if (word === undefined || call !== undefined || KEYWORDS.has(word)) continue;
    // A number's exponent (1e-9) or a duration (5m) is not a name.
    if (/^e\d*$/.test(word) || /^\d/.test(word)) continue;
    names.add(word);
  }
  return [...names];
};

/** Whether a name is exported: itself, or the series of an exported histogram. */
const isExported = (name: string, exported: ReadonlySet<string>): boolean => {
  if (exported.has(name) || PROMETHEUS_SERIES.has(name)) return true;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  return base !== name && exported.has(base);
};

type Target = { expr?: string };
type Panel = { title?: string; targets?: Target[]; panels?: Panel[] };
type Dashboard = { panels?: Panel[]; templating?: { list?: { query?: string | { query?: string } }[] } };

const dashboardExpressions = (dashboard: Dashboard): { where: string; expr: string }[] => {
  const panels = (list: Panel[] = []): Panel[] => list.flatMap((panel) => [panel, ...panels(panel.panels)]);
  const fromPanels = panels(dashboard.panels).flatMap((panel) =>
    (panel.targets ?? []).flatMap((target) => (target.expr ? [{ where: `panel "${panel.title ?? "?"}"`, expr: target.expr }] : [])),
  );
  // A variable's label_values(metric, label) names a metric too.
  const fromVariables = (dashboard.templating?.list ?? []).flatMap((variable) => {
    const query = typeof variable.query === "string" ? variable.query : variable.query?.query;
    const metric = query === undefined ? undefined : /label_values\(\s*([A-Za-z_:][\w:]*)/.exec(query)?.[1];
    return metric ? [{ where: "a variable", expr: metric }] : [];
  });
  return [...fromPanels, ...fromVariables];
};

type Rule = { alert?: string; expr?: string; for?: string; labels?: { severity?: string }; annotations?: Record<string, string> };
type RuleFile = { groups?: { name?: string; rules?: Rule[] }[] };

const dashboard = JSON.parse(read("deploy/grafana/social-lookup.json")) as Dashboard;
const rules = (parse(read("deploy/prometheus/alerts.yml")) as RuleFile).groups?.flatMap((group) => group.rules ?? []) ?? [];
const exported = new Set(exportedMetricNames());

describe("the metric name extractor", () => {
  it("reads the metrics of an expression, not its functions, labels, ranges, groupings or numbers", () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (operation, le) (rate(social_lookup_request_duration_seconds_bucket{status=~"5..", instance=~"$instance"}[$__rate_interval]))) / clamp_min(x_total, 1e-9) > 2 and on (instance) up == 1',
      ).sort(),
    ).toEqual(["social_lookup_request_duration_seconds_bucket", "up", "x_total"]);
  });

  it("makes an unknown name fail the check, and a histogram's series pass it", () => {
    const names = metricNamesIn("sum(rate(social_lookup_requets_total[5m])) + social_lookup_request_duration_seconds_count");
    expect(names.filter((name) => !isExported(name, exported))).toEqual(["social_lookup_requets_total"]);
  });
});

describe("deploy/grafana/social-lookup.json", () => {
  const expressions = dashboardExpressions(dashboard);

  it("has panels with queries", () => {
    expect(expressions.length).toBeGreaterThan(20);
  });

  it("names only metrics the service exports", () => {
    const unknown = expressions.flatMap(({ where, expr }) => metricNamesIn(expr).filter((name) => !isExported(name, exported)).map((name) => `${where}: ${name}`));
    expect(unknown).toEqual([]);
  });

  it("shows what the issue asks: requests, errors, latency, refusals, credits, upstream, batches, database, event loop, connections, readiness, low pools", () => {
    const named = new Set(expressions.flatMap(({ expr }) => metricNamesIn(expr).map((name) => name.replace(/_(bucket|sum|count)$/, ""))));
    for (const name of [
      "social_lookup_requests_total",
      "social_lookup_request_duration_seconds",
      "social_lookup_refusals_total",
      "social_lookup_credits_charged_total",
      "social_lookup_upstream_request_duration_seconds",
      "social_lookup_upstream_errors_total",
      "social_lookup_upstream_circuit_state",
      "social_lookup_cache_lookups_total",
      "social_lookup_batches",
      "social_lookup_db_statement_duration_seconds",
      "social_lookup_db_worker_queue_depth",
      "nodejs_eventloop_lag_seconds",
      "social_lookup_open_connections",
      "social_lookup_ready",
      "social_lookup_pools_low_credits",
    ]) {
      expect(named, name).toContain(name);
    }
  });
});

describe("deploy/prometheus/alerts.yml", () => {
  it("has the alerts the issue asks for", () => {
    expect(rules.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        "SocialLookupHighErrorRate",
        "SocialLookupHighLatencyP99",
        "SocialLookupInstanceNotReady",
        "SocialLookupPoolsLowCredits",
        "SocialLookupUpstreamCircuitOpen",
      ]),
    );
  });

  it("gives every rule an expression, a duration, a severity and a summary and description", () => {
    for (const rule of rules) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^SocialLookup[A-Za-z0-9]+$/);
      expect(rule.expr?.trim(), `${rule.alert} expr`).toBeTruthy();
      expect(rule.for, `${rule.alert} for`).toMatch(/^\d+[smh]$/);
      expect(["critical", "warning", "info"], `${rule.alert} severity`).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, `${rule.alert} summary`).toBeTruthy();
      expect(rule.annotations?.description, `${rule.alert} description`).toBeTruthy();
    }
  });

  it("names only metrics the service exports (or Prometheus's own up)", () => {
    const unknown = rules.flatMap((rule) => metricNamesIn(rule.expr ?? "").filter((name) => !isExported(name, exported)).map((name) => `${rule.alert}: ${name}`));
    expect(unknown).toEqual([]);
  });
});

describe("deploy/prometheus/prometheus.yml", () => {
  it("scrapes /metrics and loads the alert rules beside it", () => {
    const config = parse(read("deploy/prometheus/prometheus.yml")) as { rule_files?: string[]; scrape_configs?: { job_name?: string; metrics_path?: string }[] };
    expect(config.rule_files).toContain("alerts.yml");
    expect(config.scrape_configs?.[0]).toMatchObject({ job_name: "social-lookup", metrics_path: "/metrics" });
  });
});
