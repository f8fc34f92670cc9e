/**
 * The naming rules `promtool check metrics` applies to a Prometheus text exposition (its lint,
 * promlint: exit 3 on any problem), written out so a test holds a real scrape to them without
 * promtool installed. Each problem names the metric family and the rule, as promtool prints it.
 */
export type MetricFamily = { name: string; type: string | null; help: string | null; labelNames: Set<string> };

const BASE_UNITS = new Set(["amperes", "bytes", "celsius", "grams", "joules", "kelvin", "meters", "metres", "seconds", "volts"]);
const NON_BASE_UNITS: Record<string, string> = {
  minutes: "seconds",
  hours: "seconds",
  days: "seconds",
  weeks: "seconds",
  kelvins: "kelvin",
  fahrenheit: "celsius",
  rankine: "celsius",
  inches: "meters",
  yards: "meters",
  miles: "meters",
  bits: "bytes",
  calories: "joules",
  pounds: "grams",
  ounces: "grams",
};
const UNIT_PREFIXES = ["pico", "nano", "micro", "milli", "centi", "deci", "deca", "hecto", "kilo", "kibi", "mega", "mibi", "giga", "gibi", "tera", "tebi", "peta", "pebi"];
const UNIT_ABBREVIATIONS = ["s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "pb", "m", "h", "d"];
const TYPE_NAMES = ["counter", "gauge", "summary", "histogram", "gauge_histogram"];
const CAMEL_CASE = /[a-z][A-Z]/;

const baseOf = (word: string): string | undefined => (BASE_UNITS.has(word) ? word : NON_BASE_UNITS[word]);

/** The first unit a name mentions (a word, or a prefixed one such as "milliseconds") and its base unit. */
const unitOf = (name: string): { unit: string; base: string } | null => {
  for (const word of name.split("_")) {
    const base = baseOf(word);
    if (base !== undefined) return { unit: word, base };
    for (const prefix of UNIT_PREFIXES) {
      const prefixedBase = word.startsWith(prefix) ? baseOf(word.slice(prefix.length)) : undefined;
      if (prefixedBase !== undefined) return { unit: word, base: prefixedBase };
    }
  }
  return null;
};

const has = (name: string, word: string): boolean => name.includes(`_${word}_`) || name.endsWith(`_${word}`);

/** The series of a family: its own name, or a histogram's and a summary's parts. */
const familyOfSample = (sample: string, families: Map<string, MetricFamily>): MetricFamily | undefined => {
  const own = families.get(sample);
  if (own !== undefined) return own;
  const base = sample.replace(/_(bucket|sum|count|total|created)$/, "");
  return families.get(base);
};

const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="(?:[^"\\]|\\.)*"/g;

/** The families of a text exposition (0.0.4): their TYPE, HELP and the label names their samples use. */
export const parseExposition = (text: string): Map<string, MetricFamily> => {
  const families = new Map<string, MetricFamily>();
  const family = (name: string): MetricFamily => {
    let found = families.get(name);
    if (found === undefined) {
      found = { name, type: null, help: null, labelNames: new Set() };
      families.set(name, found);
    }
    return found;
  };
  for (const line of text.split("\n")) {
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name = "", rest = ""] = meta;
      if (kind === "HELP") family(name).help = rest;
      else family(name).type = rest;
      continue;
    }
    if (line.trim() === "" || line.startsWith("#")) continue;
    const sample = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line.slice(0, 80)}`);
    const [, name = "", labels = ""] = sample;
    const owner = familyOfSample(name, families) ?? family(name);
    for (const match of labels.matchAll(LABEL)) if (match[1] !== undefined) owner.labelNames.add(match[1]);
  }
  return families;
};

/** promlint's default rules over one family; each problem as "<name> <text>". */
export const lintFamily = (family: MetricFamily): string[] => {
  const { name, type } = family;
  const problems: string[] = [];
  const add = (text: string) => problems.push(`${name} ${text}`);
  const typed = type !== null && type !== "untyped";
  if (family.help === null) add("no help text");
  const unit = unitOf(name);
  if (unit !== null && unit.unit !== unit.base) add(`use base unit "${unit.base}" instead of "${unit.unit}"`);
  if (type === "counter" && !name.endsWith("_total")) add('counter metrics should have "_total" suffix');
  if (typed && type !== "counter" && name.endsWith("_total")) add('non-counter metrics should not have "_total" suffix');
  if (typed) {
    const histogram = type === "histogram";
    const summary = type === "summary";
    if (!histogram && name.endsWith("_bucket")) add('non-histogram metrics should not have "_bucket" suffix');
    if (!histogram && !summary && name.endsWith("_count")) add('non-histogram and non-summary metrics should not have "_count" suffix');
    if (!histogram && !summary && name.endsWith("_sum")) add('non-histogram and non-summary metrics should not have "_sum" suffix');
    if (!histogram && family.labelNames.has("le")) add('non-histogram metrics should not have "le" label');
    if (!summary && family.labelNames.has("quantile")) add('non-summary metrics should not have "quantile" label');
  }
  const lower = name.toLowerCase();
  for (const typeName of TYPE_NAMES) if (has(lower, typeName)) add(`metric name should not include type '${typeName}'`);
  if (name.includes(":")) add("metric names should not contain ':'");
  if (CAMEL_CASE.test(name)) add("metric names should be written in 'snake_case' not 'camelCase'");
  if ([...family.labelNames].some((label) => CAMEL_CASE.test(label))) add("label names should be written in 'snake_case' not 'camelCase'");
  if (UNIT_ABBREVIATIONS.some((abbreviation) => has(lower, abbreviation))) add("metric names should not contain abbreviated units");
  return problems;
};

/** Every problem `promtool check metrics` would report for `text` (none: it exits 0). */
export const lintExposition = (text: string): string[] => [...parseExposition(text).values()].flatMap(lintFamily);
