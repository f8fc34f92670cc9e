import { at } from "./rng";

/** Calendar maths for the demo data set in UTC day numbers, so the machine's time zone never leaks in. */
export const DAY_MS = 86_400_000;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
] as const;

export type CalendarDay = { year: number; month: number; day: number; weekday: number; dayNumber: number };

export const dayNumberOf = (year: number, month: number, day: number): number => Date.UTC(year, month - 1, day) / DAY_MS;

export const calendarDay = (dayNumber: number): CalendarDay => {
  const date = new Date(dayNumber * DAY_MS);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    weekday: date.getUTCDay(),
    dayNumber,
  };
};

export const pad2 = (value: number) => String(value).padStart(2, "0");
export const isoDate = (day: CalendarDay) => `${day.year}-${pad2(day.month)}-${pad2(day.day)}`;
export const longDate = (day: CalendarDay) =>
  `${at(WEEKDAYS, day.weekday)}, ${at(MONTHS, day.month - 1)} ${day.day}, ${day.year}`;


/** "7:00 PM" from minutes after midnight. */
export const clock12 = (minutes: number): string => {
  const hours = Math.floor(minutes / 60) % 24;
  const suffix = hours < 12 ? "AM" : "PM";
  return `${hours % 12 === 0 ? 12 : hours % 12}:${pad2(minutes % 60)} ${suffix}`;
};
export const clock24 = (minutes: number) => `${pad2(Math.floor(minutes / 60) % 24)}:${pad2(minutes % 60)}:00`;
