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
});
