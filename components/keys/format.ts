/**
 * Dates and numbers as the console shows them. Dates use the browser's locale and time zone:
 * they only come from data fetched in the browser. Numbers also render on the server (the
 * allowance), so they use one fixed locale and hydrate identically.
 */
import { formatDateTime as formatMoment } from "@/components/ui/date-time";

const wholeNumber = new Intl.NumberFormat("en-US");

export const formatDateTime = (iso: string | null, empty = "—"): string => (iso === null ? empty : formatMoment(iso));

export const formatCount = (value: number): string => wholeNumber.format(value);

export const isExpired = (expiresAt: string | null, now = Date.now()): boolean =>
  expiresAt !== null && Date.parse(expiresAt) <= now;

/** The message of a failed request (fetchJson throws the server's readable message). */
export const errorMessage = (error: unknown): string =>
  error instanceof Error && error.message ? error.message : "Something went wrong. Try again.";

/**
 * A whole number typed into a field, or null when it is not one. `Number("")` is 0 and
 * `Number("1e3")` is 1000, so only plain digit strings count.
 */
export const parseWholeNumber = (raw: string): number | null => {
  const trimmed = raw.trim();
  if (!/^\d{1,10}$/.test(trimmed)) return null;
  return Number(trimmed);
};
