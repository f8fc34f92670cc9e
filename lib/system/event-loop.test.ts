import { describe, expect, it } from "vitest";
import { eventLoopDelaySinceLast } from "./event-loop";

const busyFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Holding the thread, as a slow synchronous handler would.
  }
};

describe("eventLoopDelaySinceLast", () => {
  it("starts measuring on the first call, then reports the delay since the last call and starts over", async () => {
    expect(eventLoopDelaySinceLast()).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 100));
    busyFor(120);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const blocked = eventLoopDelaySinceLast();
    expect(blocked?.p99Ms).toBeGreaterThanOrEqual(80);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const calm = eventLoopDelaySinceLast();
    expect(calm?.p99Ms).toBeLessThan(blocked?.p99Ms ?? 0);
  });
});
