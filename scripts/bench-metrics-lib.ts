/**
 * Reading the Prometheus text format the way a scraper does, for the benches' exactness checks:
 * the samples of one metric with their labels, and their sum grouped by one label.
 */
export type Sample = { labels: Record<string, string>; value: number };

const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

const unescape = (value: string): string => value.replace(/\\(.)/g, (_, escaped: string) => (escaped === "n" ? "\n" : escaped));

/** Every sample of `name` (not its _sum/_count/_bucket siblings, not comments). */
export const countersOf = (exposition: string, name: string): Sample[] =>
  exposition.split("\n").flatMap((line): Sample[] => {
    if (line.startsWith("#")) return [];
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null || match[1] !== name) return [];
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[3] ?? "").matchAll(LABEL)) if (key !== undefined && value !== undefined) labels[key] = unescape(value);
    const value = Number(match[4]);
    return Number.isFinite(value) ? [{ labels, value }] : [];
  });

/** The samples whose labels include all of `where`, summed by the value of label `by`. */
export const sumSamples = (samples: readonly Sample[], where: Record<string, string>, by: string): Map<string, number> => {
  const sums = new Map<string, number>();
  for (const sample of samples) {
    if (!Object.entries(where).every(([key, value]) => sample.labels[key] === value)) continue;
    const group = sample.labels[by] ?? "";
    sums.set(group, (sums.get(group) ?? 0) + sample.value);
  }
  return sums;
};
