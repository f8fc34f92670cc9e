/**
 * UTC calendar days as "YYYY-MM-DD" strings: the unit of the daily rollups (usage_daily.day is
 * the UTC date of the request). Plain string arithmetic through Date.UTC, no time-zone library.
 */
export type Day = string;

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export const utcDay = (at: Date): Day => at.toISOString().slice(0, 10);

/** Midnight UTC starting the day. */
export const dayStart = (day: Day): Date => new Date(`${day}T00:00:00.000Z`);

export const addDays = (day: Day, days: number): Day => utcDay(new Date(dayStart(day).getTime() + days * DAY_MS));

/** Whether the text is a real calendar date (2025-02-30 is not). */
export const isDay = (text: string): boolean => {
  const match = DAY_PATTERN.exec(text);
  if (!match) return false;
  const parsed = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(parsed.getTime()) && utcDay(parsed) === text;
};

export const dayCount = (from: Day, to: Day): number => Math.round((dayStart(to).getTime() - dayStart(from).getTime()) / DAY_MS) + 1;

/**
 * The days the service keeps and reports usage for, both included: the one statement of the
 * range. Inside it every day is four digits of year, so string order is time order and day
 * arithmetic cannot wrap (past 9999-12-31, Date writes "+010000-01-01", which sorts first).
 */
export const FIRST_DAY: Day = "2000-01-01";
export const LAST_DAY: Day = "2999-12-31";
export const SUPPORTED_DAYS = `${FIRST_DAY} … ${LAST_DAY}`;

/** Whether the text is a real calendar date inside the supported range. */
export const isSupportedDay = (text: string): boolean => isDay(text) && text >= FIRST_DAY && text <= LAST_DAY;

/** Whether the instant falls on a supported day (UTC). */
export const isSupportedTime = (at: Date): boolean =>
  !Number.isNaN(at.getTime()) && at.getTime() >= dayStart(FIRST_DAY).getTime() && at.getTime() < dayStart(addDays(LAST_DAY, 1)).getTime();

/**
 * Days from `from` to `to`, both included: a count known before the first step, so the loop
 * ends whatever the days are (an empty list when `to` is before `from` or either is no day).
 */
export const daysBetween = (from: Day, to: Day): Day[] => {
  if (!isDay(from) || !isDay(to)) return [];
  return Array.from({ length: Math.max(0, dayCount(from, to)) }, (_, index) => addDays(from, index));
};

export { DAY_MS };
