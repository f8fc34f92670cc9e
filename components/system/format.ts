/**
 * The system page's figures as text. A fixed locale: the page shows operators' figures, and
 * the numbers must read the same in the table, the tests and the screen reader.
 */
const oneDecimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const twoDecimals = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export const UNKNOWN = "—";

export const formatCount = (value: number): string => whole.format(value);

/** Lookups per second: two decimals below 10 (a quiet instance still shows its trickle). */
export const formatPerSecond = (value: number): string => (value < 10 ? twoDecimals : oneDecimal).format(value);

export const formatShare = (fraction: number | null): string => (fraction === null ? UNKNOWN : `${twoDecimals.format(fraction * 100)} %`);

export const formatMs = (ms: number | null): string => {
  if (ms === null) return UNKNOWN;
  if (ms >= 1000) return `${twoDecimals.format(ms / 1000)} s`;
  return `${ms < 10 ? twoDecimals.format(ms) : whole.format(ms)} ms`;
};

export const formatGauge = (value: number | null): string => (value === null ? UNKNOWN : whole.format(value));

/** "45 s", "12 min", "3 h 20 min", "2 d 4 h": the two largest units. */
export const formatDuration = (totalS: number): string => {
  const seconds = Math.max(0, Math.floor(totalS));
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return `${minutes} min`;
  return `${seconds} s`;
};

export const formatSeenAgo = (seenAgoS: number): string => (seenAgoS < 1 ? "just now" : `${formatDuration(seenAgoS)} ago`);
