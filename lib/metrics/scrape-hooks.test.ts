import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { exposition, metrics, onScrape } from "./registry";

/** The scrape hooks of the registry: awaited before the text is rendered, never able to fail a scrape. */
const unregister: Array<() => void> = [];
afterEach(() => {
  for (const done of unregister.splice(0)) done();
  vi.restoreAllMocks();
});

const seriesLine = (body: string, name: string) => body.split("\n").find((line) => line.startsWith(`${name} `));

describe("onScrape", () => {
  it("runs every hook before rendering, so a gauge set there is in the same scrape", async () => {
    unregister.push(
      onScrape(async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        metrics().poolsLowCredits.set(7);
      }),
    );
    const { body } = await exposition();
    expect(seriesLine(body, "social_lookup_pools_low_credits")).toBe("social_lookup_pools_low_credits 7");
  });

  it("answers the scrape when a hook throws or hangs, and logs a failing hook once a minute at most", async () => {
    const warn = vi.spyOn(log, "warn").mockImplementation(() => undefined);
    unregister.push(onScrape(() => Promise.reject(new Error("database gone"))));
    unregister.push(onScrape(() => new Promise<void>(() => undefined)));
    unregister.push(onScrape(() => metrics().batchesRunningHere.set(3)));
    const startedAt = Date.now();
    const first = await exposition();
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(seriesLine(first.body, "social_lookup_batches_running_here")).toBe("social_lookup_batches_running_here 3");
    await exposition();
    const failures = warn.mock.calls.filter(([message]) => message.includes("scrape hook failed")).map(([, fields]) => JSON.stringify(fields));
    // Two failing hooks, two scrapes: each hook logged once.
    expect(failures).toHaveLength(2);
    expect(failures.some((line) => line.includes("database gone"))).toBe(true);
    metrics().batchesRunningHere.set(0);
  });

  it("stops running a hook once it is unregistered", async () => {
    let runs = 0;
    const done = onScrape(() => {
      runs += 1;
    });
    await exposition();
    done();
    await exposition();
    expect(runs).toBe(1);
  });
});
