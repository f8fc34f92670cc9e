import { descriptorById, operationDescriptors } from "@/lib/operations/descriptors";
import { LATENCY_TOP_BUCKET_MS } from "@/lib/usage/latency";
import { formatDateTime } from "@/components/ui/date-time";

/** Numbers, shares and durations as the usage page shows them (browser locale). */
const wholeNumber = new Intl.NumberFormat(undefined);
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });
const logTime = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});
const shortDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const longDay = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });

export const formatCount = (value: number): string => wholeNumber.format(value);

export const formatRate = (value: number): string => oneDecimal.format(value);

export const formatPercent = (fraction: number): string => percent.format(fraction);

/** A moment as the whole console shows it (components/ui/date-time.ts): to the minute, browser locale. */
export const formatTime = (iso: string): string => formatDateTime(iso);

/** Compact, for log rows: "Jun 14, 18:00:07" (browser time zone; the ISO time is in the title). */
export const formatLogTime = (iso: string): string => logTime.format(new Date(iso));

/** "Jun 14" for a UTC day "2025-06-14". */
export const formatShortDay = (day: string): string => shortDay.format(new Date(`${day}T00:00:00Z`));

export const formatDay = (day: string): string => longDay.format(new Date(`${day}T00:00:00Z`));

/** A latency bucket bound: "≤ 64 ms", "≤ 2 s", "≥ 16.4 s" for the open top bucket. */
export const formatLatencyBound = (ms: number | null): string => {
  if (ms === null) return "—";
  const text = ms >= 1000 ? `${oneDecimal.format(ms / 1000)} s` : `${formatCount(ms)} ms`;
  return ms >= LATENCY_TOP_BUCKET_MS ? `≥ ${text}` : `≤ ${text}`;
};

export const formatMs = (ms: number | null): string => (ms === null ? "—" : `${oneDecimal.format(ms)} ms`);

/** Operation ids as people read them (each operation module's short label), in registry order. */
export const operationLabels: ReadonlyMap<string, string> = new Map(operationDescriptors.map((operation) => [operation.id, operation.label.short]));

export const operationLabel = (id: string): string => operationLabels.get(id) ?? id;

/** Chart colour of an operation (its module's); an id no longer served gets the accent. */
export const operationColor = (id: string): string => descriptorById(id)?.chartColor ?? "var(--accent)";

export const statusClassColors = {
  "2xx": "var(--success)",
  "4xx": "var(--warning)",
  "5xx": "var(--danger)",
} as const;
