import { describe, expect, it } from "vitest";
import { admitted, createPacer, WINDOW_MS } from "./pacer";

describe("the batch pacer", () => {
  it("says how many lookups may start at once: the window's room, none while held off", async () => {
    let clock = 1_000_000;
    const pacer = createPacer(() => clock);
    expect(admitted(50)).toBe(49);
    expect(pacer.room("k", 50)).toBe(49);
    for (let index = 0; index < 10; index += 1) await pacer.slot("k", 50);
    expect(pacer.room("k", 50)).toBe(39);
    expect(pacer.room("other", 50)).toBe(49);
    clock += WINDOW_MS;
    expect(pacer.room("k", 50)).toBe(49);
    pacer.holdOff("k", 500);
    expect(pacer.room("k", 50)).toBe(0);
    clock += 500;
    expect(pacer.room("k", 50)).toBe(49);
  });

  it("sustains 98 % of the key's limit, yet never starts more than the limit within the limiter's second", async () => {
    let clock = 0;
    const pacer = createPacer(() => clock);
    const starts: number[] = [];
    // The lookups a batch with room to spare would start: every one the pacer lets through, at once.
    for (; clock < 100_000; clock += 1) {
      while (pacer.room("k", 50) > 0) {
        await pacer.slot("k", 50);
        starts.push(clock);
      }
    }
    expect(starts.length / 100).toBeGreaterThanOrEqual(0.97 * 50);
    // The limiter admits at most the limit within 1,000 ms of any admission (it counts a batch
    // lookup at the moment it started), with the margin for the key's own calls left free.
    let first = 0;
    for (let last = 0; last < starts.length; last += 1) {
      while ((starts[last] ?? 0) - (starts[first] ?? 0) >= 1000) first += 1;
      expect(last - first + 1).toBeLessThanOrEqual(admitted(50));
    }
  });
});
