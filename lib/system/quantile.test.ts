import { describe, expect, it } from "vitest";
import { histogramQuantile, type Bucket } from "./quantile";

const buckets = (pairs: [number, number][]): Bucket[] => pairs.map(([upperBound, count]) => ({ upperBound, count }));
const inf = Number.POSITIVE_INFINITY;

// Prometheus's own cases (promql/promqltest/testdata/histograms.test, `testhistogram` at 50m):
// the same buckets must give the same figures here as on a dashboard.
const positive = buckets([[0.1, 50], [0.2, 70], [1, 110], [inf, 120]]);
const negative = buckets([[-0.2, 10], [-0.1, 20], [0.3, 20], [inf, 30]]);

describe("histogramQuantile, as Prometheus's histogram_quantile", () => {
  it.each([
    [0, 0],
    [0.2, 0.048],
    [0.5, 0.15],
    [0.8, 0.72],
    [1, 1],
  ])("interpolates within the bucket the rank falls in (q=%s → %s), the first bucket starting at 0", (quantile, expected) => {
    expect(histogramQuantile(quantile, positive)).toBeCloseTo(expected, 10);
  });

  it.each([
    [0, -0.2],
    [0.2, -0.2],
    [0.5, -0.15],
    [0.8, 0.3],
    [1, 0.3],
  ])("answers a first bucket's bound when it is not above 0, and the highest finite bound for a rank in +Inf (q=%s → %s)", (quantile, expected) => {
    expect(histogramQuantile(quantile, negative)).toBeCloseTo(expected, 10);
  });

  it("reads buckets in any order, and merges buckets of one bound (several series summed)", () => {
    const shuffled = [positive[3], positive[0], positive[2], positive[1]].filter((bucket) => bucket !== undefined);
    expect(histogramQuantile(0.5, shuffled)).toBeCloseTo(0.15, 10);
    const halves = positive.flatMap((bucket) => [
      { upperBound: bucket.upperBound, count: bucket.count / 2 },
      { upperBound: bucket.upperBound, count: bucket.count / 2 },
    ]);
    expect(histogramQuantile(0.8, halves)).toBeCloseTo(0.72, 10);
  });

  it("raises a count lower than the one below it, as Prometheus does before it interpolates", () => {
    expect(histogramQuantile(0.5, buckets([[0.1, 50], [0.2, 40], [1, 110], [inf, 120]]))).toBeCloseTo(0.2 + 0.8 * (10 / 60), 10);
  });

  it("has no answer without observations, without a +Inf bucket or with +Inf alone", () => {
    expect(histogramQuantile(0.5, buckets([[0.1, 0], [inf, 0]]))).toBeNull();
    expect(histogramQuantile(0.5, buckets([[0.1, 3], [0.2, 5]]))).toBeNull();
    expect(histogramQuantile(0.5, buckets([[inf, 5]]))).toBeNull();
    expect(histogramQuantile(0.5, [])).toBeNull();
  });

  it("answers -Inf and +Inf for quantiles outside [0, 1]", () => {
    expect(histogramQuantile(-0.1, positive)).toBe(Number.NEGATIVE_INFINITY);
    expect(histogramQuantile(1.1, positive)).toBe(inf);
    expect(histogramQuantile(Number.NaN, positive)).toBeNull();
  });
});
