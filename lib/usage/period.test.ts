import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "@/lib/errors";
import { dayRange, MAX_RANGE_DAYS, parseUsageQuery, timeRange } from "@/lib/console-api/usage";
import { dayCount, daysBetween, FIRST_DAY, isSupportedDay, isSupportedTime, LAST_DAY } from "./period";

/**
 * The usage range parser (from/to of the summary, the request log and both exports) answers
 * every pair of values — days, date-times, garbage, years 0000 to 12000 — with either a range
 * inside the supported days or a 400-kind error, and the day list of an accepted range is as
 * long as its day count: no input makes the day loop run on (it once wrapped past 9999-12-31).
 */
const pad = (value: number, width: number) => String(value).padStart(width, "0");

const day = fc
  .record({ year: fc.integer({ min: 0, max: 12_000 }), month: fc.integer({ min: 0, max: 13 }), date: fc.integer({ min: 0, max: 32 }) })
  .map(({ year, month, date }) => `${pad(year, 4)}-${pad(month, 2)}-${pad(date, 2)}`);

const edgeDay = fc.constantFrom("0000-01-01", "1999-12-31", FIRST_DAY, LAST_DAY, "3000-01-01", "9999-12-31", "2025-02-29", "2024-02-29");

const offset = fc.oneof(
  fc.constant("Z"),
  fc.record({ sign: fc.constantFrom("+", "-"), hours: fc.integer({ min: 0, max: 25 }), minutes: fc.integer({ min: 0, max: 59 }) }).map(
    ({ sign, hours, minutes }) => `${sign}${pad(hours, 2)}:${pad(minutes, 2)}`,
  ),
);

const time = fc
  .record({ day: fc.oneof(day, edgeDay), hour: fc.integer({ min: 0, max: 24 }), minute: fc.integer({ min: 0, max: 60 }), offset })
  .map(({ day: date, hour, minute, offset: zone }) => `${date}T${pad(hour, 2)}:${pad(minute, 2)}:00${zone}`);

const value = fc.oneof(day, edgeDay, time, fc.string({ maxLength: 30 }), fc.constant(""));

/** A day and one up to 400 days on, so that accepted ranges are tried as often as refused ones. */
const nearPair = fc
  .record({ start: fc.integer({ min: Date.UTC(1998, 0, 1), max: Date.UTC(3001, 11, 31) }), days: fc.integer({ min: -5, max: 400 }) })
  .map(({ start, days }): [string, string] => [new Date(start).toISOString().slice(0, 10), new Date(start + days * 86_400_000).toISOString().slice(0, 10)]);

const pair = fc.oneof(fc.tuple(value, value), nearPair);

type Outcome = { ok: true; days: { from: string; to: string }; times: { from?: Date; to?: Date } } | { ok: false; error: unknown };

const parseRange = (from: string, to: string): Outcome => {
  try {
    const query = parseUsageQuery(new URLSearchParams({ from, to }));
    return { ok: true, days: dayRange(query), times: timeRange(query) };
  } catch (error) {
    return { ok: false, error };
  }
};

describe("the usage range parser", () => {
  it("answers any pair of days and times with a bounded supported range or a request error", () => {
    fc.assert(
      fc.property(pair, ([from, to]) => {
        const outcome = parseRange(from, to);
        if (!outcome.ok) {
          expect(outcome.error).toBeInstanceOf(DomainError);
          expect((outcome.error as DomainError).code).toBe("invalid_request");
          return;
        }
        const { days, times } = outcome;
        expect(isSupportedDay(days.to)).toBe(true);
        const listed = daysBetween(days.from, days.to);
        expect(listed.length).toBe(dayCount(days.from, days.to));
        expect(listed.length).toBeLessThanOrEqual(MAX_RANGE_DAYS);
        for (const bound of [times.from, times.to]) if (bound !== undefined) expect(Number.isNaN(bound.getTime())).toBe(false);
        if (times.from !== undefined) expect(isSupportedTime(times.from)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses days and times outside the supported range with a message that names it", () => {
    for (const [from, to] of [
      ["9999-06-01", "9999-12-31"],
      ["2025-01-01", "9999-12-31"],
      ["0000-01-01", "0000-01-02"],
      ["1999-12-31", "2000-01-05"],
      ["2999-12-31T20:00:00-05:00", "2999-12-31T23:00:00Z"],
    ] as const) {
      const outcome = parseRange(from, to);
      expect(outcome.ok, `${from} … ${to}`).toBe(false);
      if (!outcome.ok) expect((outcome.error as Error).message).toContain(`${FIRST_DAY} … ${LAST_DAY}`);
    }
  });

  it("accepts the range's own first and last days, and lists the days between", () => {
    const last = parseRange("2999-12-01", LAST_DAY);
    expect(last.ok && daysBetween(last.days.from, last.days.to).at(-1)).toBe(LAST_DAY);
    expect(last.ok && last.times.to?.toISOString()).toBe("3000-01-01T00:00:00.000Z");
    const first = parseRange(FIRST_DAY, "2000-01-03");
    expect(first.ok && daysBetween(first.days.from, first.days.to)).toEqual([FIRST_DAY, "2000-01-02", "2000-01-03"]);
  });
});
