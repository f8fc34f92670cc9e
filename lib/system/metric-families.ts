/**
 * The metrics the system page reads, by name, as prom-client's JSON gives them
 * (`registry.getSingleMetric(name).get()`, one family per name). Read by name rather than through
 * the registry's objects, so that a series nobody has moved yet — or a metric another version does
 * not have — is simply absent: counters then count 0, gauges are unknown.
 */
export type MetricFamily = {
  name: string;
  values: readonly { value: number; labels: Readonly<Record<string, string | number | undefined>>; metricName?: string }[];
};

export type Families = ReadonlyMap<string, MetricFamily>;

export const METRIC = {
  requests: "social_lookup_requests_total",
  requestDuration: "social_lookup_request_duration_seconds",
  batches: "social_lookup_batches",
  batchesRunningHere: "social_lookup_batches_running_here",
  dbWorkerQueueDepth: "social_lookup_db_worker_queue_depth",
} as const;

export const SNAPSHOT_METRICS: readonly string[] = Object.values(METRIC);

type Labels = MetricFamily["values"][number]["labels"];

/** The sum of a family's values whose labels pass `keep` (and whose series name is `metricName`, for a histogram's parts). */
export const sumOf = (
  families: Families,
  name: string,
  keep: (labels: Labels) => boolean = () => true,
  metricName?: string,
): number =>
  (families.get(name)?.values ?? [])
    .filter((value) => (metricName === undefined || value.metricName === metricName) && keep(value.labels))
    .reduce((total, value) => total + value.value, 0);

/** A gauge's value (summed over the series `keep` selects), or null when it has no such series. */
export const gaugeOf = (families: Families, name: string, keep: (labels: Labels) => boolean = () => true): number | null => {
  const values = (families.get(name)?.values ?? []).filter((value) => keep(value.labels));
  return values.length === 0 ? null : values.reduce((total, value) => total + value.value, 0);
};

/** What is read of a registry: prom-client's `Registry` is one. */
export type FamilySource = { getSingleMetric(name: string): { get(): Promise<MetricFamily> | MetricFamily } | undefined };

/** The families the snapshot reads, each collected on its own: a metric the registry lacks is left out. */
export const readFamilies = async (source: FamilySource, names: readonly string[] = SNAPSHOT_METRICS): Promise<Families> => {
  const families = new Map<string, MetricFamily>();
  for (const name of names) {
    const metric = source.getSingleMetric(name);
    if (metric !== undefined) families.set(name, await metric.get());
  }
  return families;
};
