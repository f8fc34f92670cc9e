import { describe, expect, it } from "vitest";
import { countersOf, sumSamples } from "./bench-metrics-lib";

const EXPOSITION = [
  "# HELP social_lookup_requests_total Lookups with a usage record.",
  "# TYPE social_lookup_requests_total counter",
  'social_lookup_requests_total{channel="api",operation="followers",status="200"} 1200',
  'social_lookup_requests_total{status="499",operation="followers",channel="api"} 3',
  'social_lookup_requests_total{channel="mcp",operation="followers",status="200"} 7',
  'social_lookup_requests_total{channel="api",operation="event_details",status="200"} 5',
  'social_lookup_request_duration_seconds_count{channel="api",operation="followers"} 1203',
  'social_lookup_requests_totally{channel="api",operation="followers",status="200"} 99',
  'social_lookup_http_requests_total{area="v1",status_class="2xx"} 1300',
  "",
].join("\n");

describe("reading a scrape for the benchmark's ledger check", () => {
  it("reads every sample of one metric with its labels, whatever their order", () => {
    const samples = countersOf(EXPOSITION, "social_lookup_requests_total");
    expect(samples).toHaveLength(4);
    expect(samples[1]).toEqual({ labels: { status: "499", operation: "followers", channel: "api" }, value: 3 });
  });

  it("sums the matching samples by status, leaving out other channels, operations and metrics", () => {
    const byStatus = sumSamples(countersOf(EXPOSITION, "social_lookup_requests_total"), { channel: "api", operation: "followers" }, "status");
    expect([...byStatus.entries()]).toEqual([
      ["200", 1200],
      ["499", 3],
    ]);
  });

  it("reads escaped label values", () => {
    const [sample] = countersOf('m{reason="a \\"quoted\\" \\\\ value"} 2', "m");
    expect(sample?.labels.reason).toBe('a "quoted" \\ value');
  });
});
