import { LATENCY_TOP_BUCKET_MS } from "@/lib/usage/latency";

/** Numbers, shares and durations as the usage page shows them (browser locale). */
const wholeNumber = new Intl.NumberFormat(undefined);
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });
const time = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
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

export const formatTime = (iso: string): string => time.format(new Date(iso));

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

/** Operation names as people read them. */
export const operationLabels: Record<string, string> = {
  event_details: "Event by URL",
  event_details_id: "Event by id",
  followers: "Followers",
  get_user_publications: "Publications",
};

export const operationLabel = (name: string): string => operationLabels[name] ?? name;

/** Chart colours per operation: mid-tones that read on the light and the dark surface alike. */
export const operationColors: Record<string, string> = {
  event_details: "oklch(60% 0.2 277)",
  event_details_id: "oklch(70% 0.13 210)",
  followers: "oklch(76% 0.15 75)",
  get_user_publications: "oklch(66% 0.2 345)",
};

export const statusClassColors = {
  "2xx": "var(--success)",
  "4xx": "var(--warning)",
  "5xx": "var(--danger)",
} as const;
