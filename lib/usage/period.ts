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

/** Days from `from` to `to`, both included. */
export const daysBetween = (from: Day, to: Day): Day[] => {
  const days: Day[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
};

export const dayCount = (from: Day, to: Day): number => Math.round((dayStart(to).getTime() - dayStart(from).getTime()) / DAY_MS) + 1;

export { DAY_MS };
