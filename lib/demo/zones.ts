import { DAY_MS, type CalendarDay } from "./calendar";

/**
 * Time zones of the demo venues, read from the IANA database through Intl: whether summer time
 * applies, and the zone's short name, at the event's local start. Each zone names the locale whose
 * short names are the familiar abbreviations (en-US says "GMT+1" for Berlin, en-GB says "CET").
 */
export type DemoZone = { timeZone: string; namesLocale: string };

export const ZONES = {
  centralEurope: { timeZone: "Europe/Berlin", namesLocale: "en-GB" },
  uk: { timeZone: "Europe/London", namesLocale: "en-GB" },
  usEastern: { timeZone: "America/New_York", namesLocale: "en-US" },
  usCentral: { timeZone: "America/Chicago", namesLocale: "en-US" },
  usPacific: { timeZone: "America/Los_Angeles", namesLocale: "en-US" },
  japan: { timeZone: "Asia/Tokyo", namesLocale: "ja-JP" },
  sydney: { timeZone: "Australia/Sydney", namesLocale: "en-AU" },
} satisfies Record<string, DemoZone>;

const MINUTE_MS = 60_000;

const wallClock = new Map<string, Intl.DateTimeFormat>();
const shortNames = new Map<string, Intl.DateTimeFormat>();

const cached = (cache: Map<string, Intl.DateTimeFormat>, key: string, make: () => Intl.DateTimeFormat) => {
  const existing = cache.get(key);
  if (existing) return existing;
  const made = make();
  cache.set(key, made);
  return made;
};

/** The zone's offset from UTC at an instant, in ms (its wall clock read as if it were UTC, minus the instant). */
const offsetMs = (timeZone: string, instantMs: number): number => {
  const format = cached(wallClock, timeZone, () =>
    new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }),
  );
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(format.formatToParts(instantMs).find((entry) => entry.type === type)?.value ?? 0);
  return Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second")) - instantMs;
};

/** The instant at which the zone's clocks show this local day and time. */
const instantOf = (zone: DemoZone, day: CalendarDay, minutes: number): number => {
  const wall = day.dayNumber * DAY_MS + minutes * MINUTE_MS;
  // Two rounds settle it: the offset at the first guess may differ across a switch.
  const guess = wall - offsetMs(zone.timeZone, wall);
  return wall - offsetMs(zone.timeZone, guess);
};

/** The zone's short name ("CET" or "CEST", "EST" or "EDT", "JST") at a local day and time. */
export const zoneNameAt = (zone: DemoZone, day: CalendarDay, minutes: number): string => {
  const format = cached(shortNames, `${zone.timeZone} ${zone.namesLocale}`, () =>
    new Intl.DateTimeFormat(zone.namesLocale, { timeZone: zone.timeZone, timeZoneName: "short" }),
  );
  const name = format.formatToParts(instantOf(zone, day, minutes)).find((part) => part.type === "timeZoneName")?.value;
  if (name === undefined) throw new Error(`Intl gives no short name for ${zone.timeZone}`);
  return name;
};
