import type { Counter, Gauge, Histogram } from "prom-client";

/**
 * Reading the process's metrics in tests: the current value of one series, and how much it moved
 * while a piece of work ran (counters are process-wide, so tests compare deltas, not totals).
 */
type Metric = Counter<string> | Gauge<string> | Histogram<string>;
type Labels = Record<string, string>;

const matches = (have: Partial<Record<string, string | number>>, want: Labels) =>
  Object.entries(want).every(([name, value]) => String(have[name]) === value);

/** A counter's or gauge's value for the labels given (0 when the series does not exist yet); a histogram's count. */
export const valueOf = async (metric: Metric, labels: Labels = {}): Promise<number> => {
  const { values } = await metric.get();
  const series = values.filter((entry) => {
    const name = "metricName" in entry ? entry.metricName : undefined;
    return (typeof name !== "string" || name.endsWith("_count")) && matches(entry.labels, labels);
  });
  return series.reduce((sum, entry) => sum + entry.value, 0);
};

/** How much the series moved while `work` ran. */
export const deltaOf = async (metric: Metric, labels: Labels, work: () => Promise<unknown>): Promise<number> => {
  const before = await valueOf(metric, labels);
  await work();
  return (await valueOf(metric, labels)) - before;
};
