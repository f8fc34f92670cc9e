import { describe, expect, it } from "vitest";
import { calendarDay, dayNumberOf } from "./calendar";
import { ZONES, zoneNameAt } from "./zones";

const day = (year: number, month: number, date: number) => calendarDay(dayNumberOf(year, month, date));

describe("demo time zones (Intl, IANA rules)", () => {
  it("switches Central Europe to summer time at 2 AM on the last Sunday of March", () => {
    expect(zoneNameAt(ZONES.centralEurope, day(2026, 3, 29), 60)).toBe("CET");
    expect(zoneNameAt(ZONES.centralEurope, day(2026, 3, 29), 8 * 60)).toBe("CEST");
    expect(zoneNameAt(ZONES.centralEurope, day(2026, 10, 25), 20 * 60)).toBe("CET");
  });

  it("follows the US rules (second Sunday of March to first Sunday of November)", () => {
    expect(zoneNameAt(ZONES.usEastern, day(2026, 3, 7), 20 * 60)).toBe("EST");
    expect(zoneNameAt(ZONES.usEastern, day(2026, 3, 8), 20 * 60)).toBe("EDT");
    expect(zoneNameAt(ZONES.usPacific, day(2026, 11, 1), 20 * 60)).toBe("PST");
    expect(zoneNameAt(ZONES.usCentral, day(2026, 7, 1), 23 * 60)).toBe("CDT");
  });

  it("knows the southern hemisphere's summer and zones without summer time", () => {
    expect(zoneNameAt(ZONES.sydney, day(2027, 1, 15), 20 * 60)).toBe("AEDT");
    expect(zoneNameAt(ZONES.sydney, day(2026, 7, 15), 20 * 60)).toBe("AEST");
    expect(zoneNameAt(ZONES.japan, day(2026, 7, 15), 9 * 60)).toBe("JST");
    expect(zoneNameAt(ZONES.uk, day(2026, 7, 15), 19 * 60)).toBe("BST");
    expect(zoneNameAt(ZONES.uk, day(2026, 12, 15), 19 * 60)).toBe("GMT");
  });
});
