import { describe, expect, it } from "vitest";
import { isolationTarget, percentile, threadActivity, threadCountersOf } from "./bench-lib";

/** A scrape as the server writes it: the app's prefixed series beside Node's own gauges. */
const scrape = (statements: number, seconds: number, within100Ms: number, pages: number, waited: number) =>
  [
    "# TYPE social_lookup_db_statement_duration_seconds histogram",
    `social_lookup_db_statement_duration_seconds_bucket{le="0.05",database="pglite",kind="query"} ${within100Ms - 1}`,
    `social_lookup_db_statement_duration_seconds_bucket{le="0.1",database="pglite",kind="query"} ${within100Ms}`,
    `social_lookup_db_statement_duration_seconds_bucket{le="0.1",database="pglite",kind="long_read"} 1`,
    `social_lookup_db_statement_duration_seconds_sum{database="pglite",kind="query"} ${seconds}`,
    `social_lookup_db_statement_duration_seconds_count{database="pglite",kind="query"} ${statements}`,
    `social_lookup_db_statement_duration_seconds_sum{database="pglite",kind="long_read"} ${pages * 0.05}`,
    `social_lookup_db_statement_duration_seconds_count{database="pglite",kind="long_read"} ${pages}`,
    `social_lookup_db_statement_duration_seconds_count{database="postgres",kind="query"} 999`,
    `social_lookup_db_long_read_waits_total ${waited}`,
    `social_lookup_db_long_read_wait_seconds_total ${waited * 0.02}`,
    "nodejs_eventloop_lag_p99_seconds 0.0425",
    "nodejs_eventloop_lag_max_seconds 0.118",
    "",
  ].join("\n");

describe("bench:isolation's arithmetic", () => {
  it("takes the nearest-rank percentile of sorted samples", () => {
    const sorted = Array.from({ length: 200 }, (_, index) => index + 1);
    expect(percentile(sorted, 50)).toBe(100);
    expect(percentile(sorted, 99)).toBe(198);
    expect(percentile(sorted, 100)).toBe(200);
    expect(percentile([], 99)).toBeNaN();
  });

  it("meets the target only with p99 ≤ 100 ms and max ≤ 500 ms, and says so", () => {
    expect(isolationTarget(100, 500)).toEqual({ met: true, line: "target p99≤100 max≤500: met" });
    expect(isolationTarget(100.1, 120).met).toBe(false);
    expect(isolationTarget(40, 500.5)).toEqual({ met: false, line: "target p99≤100 max≤500: not met" });
    expect(isolationTarget(Number.NaN, Number.NaN).met).toBe(false);
  });

  it("reads the embedded database's statements and pages from a scrape, PostgreSQL's left out", () => {
    const counters = threadCountersOf(scrape(100, 2.5, 97, 40, 30));
    expect(counters).toMatchObject({ statements: 100, statementSeconds: 2.5, statementsWithin100Ms: 97, pages: 40, pagesWaited: 30 });
    expect(counters.eventLoopMaxSeconds).toBe(0.118);
    expect(threadCountersOf("")).toMatchObject({ statements: 0, pages: 0, eventLoopP99Seconds: 0 });
  });

  it("gives what happened between two scrapes: counts and means of the difference, Node's gauges as last read", () => {
    const before = threadCountersOf(scrape(100, 2.5, 97, 40, 30));
    const after = threadCountersOf(scrape(300, 12.5, 277, 140, 110));
    const activity = threadActivity(after, before);
    expect(activity.statements).toBe(200);
    expect(activity.statementMeanMs).toBeCloseTo(50);
    expect(activity.statementsOver100Ms).toBe(20);
    expect(activity.pages).toBe(100);
    expect(activity.pageMeanMs).toBeCloseTo(50);
    expect(activity.pagesWaited).toBe(80);
    expect(activity.pageWaitMs).toBeCloseTo(1600);
    expect(activity.eventLoopP99Ms).toBeCloseTo(42.5);
    expect(threadActivity(before, before)).toMatchObject({ statements: 0, statementMeanMs: 0, pageMeanMs: 0 });
  });
});
