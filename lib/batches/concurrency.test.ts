import { describe, expect, it } from "vitest";
import {
  batchLookupsPerProcess,
  batchTarget,
  createLatencyEstimate,
  fairShares,
  LATENCY_GUESS_MS,
  lookupsForRate,
} from "./concurrency";
import { createFairGate } from "./fair-gate";

describe("lookups a batch keeps in flight", () => {
  it("follows Little's law with headroom: rate × latency × 1.2 + 2, rounded up", () => {
    expect(lookupsForRate(50, 500)).toBe(32);
    expect(lookupsForRate(20, 2000)).toBe(50);
    expect(lookupsForRate(1000, 10)).toBe(14);
    expect(lookupsForRate(5, 100)).toBe(3);
    // Never none, even for an instant lookup.
    expect(lookupsForRate(1, 0)).toBe(2);
  });

  it("keeps to the operator's ceiling when BATCH_CONCURRENCY is set, and to none when it is not", () => {
    expect(batchTarget({ qpsLimit: 50, latencyMs: 500, ceiling: undefined })).toBe(32);
    expect(batchTarget({ qpsLimit: 50, latencyMs: 500, ceiling: 16 })).toBe(16);
    expect(batchTarget({ qpsLimit: 50, latencyMs: 500, ceiling: 100 })).toBe(32);
    expect(batchTarget({ qpsLimit: 1000, latencyMs: 2000, ceiling: undefined })).toBe(2402);
  });

  it("leaves a quarter of the process's provider calls to /v1 requests", () => {
    expect(batchLookupsPerProcess(256)).toBe(192);
    expect(batchLookupsPerProcess(16)).toBe(12);
    expect(batchLookupsPerProcess(1)).toBe(1);
  });
});

describe("the latency estimate", () => {
  it("starts from a guess, which the first lookup's duration replaces", () => {
    const latency = createLatencyEstimate();
    expect(latency.estimateMs(0)).toBe(LATENCY_GUESS_MS);
    latency.observe(2000);
    expect(latency.estimateMs(0)).toBe(2000);
  });

  it("moves a fifth of the way towards each new duration", () => {
    const latency = createLatencyEstimate();
    latency.observe(500);
    latency.observe(1000);
    expect(latency.estimateMs(0)).toBe(600);
    latency.observe(100);
    expect(latency.estimateMs(0)).toBe(500);
    for (let index = 0; index < 50; index += 1) latency.observe(100);
    expect(latency.estimateMs(0)).toBeCloseTo(100, 1);
  });

  it("rises to the age of a lookup still in flight that has run longer (a slow provider, before its first answer)", () => {
    const latency = createLatencyEstimate();
    expect(latency.estimateMs(1500)).toBe(1500);
    expect(batchTarget({ qpsLimit: 20, latencyMs: latency.estimateMs(1500), ceiling: undefined })).toBe(38);
    latency.observe(400);
    expect(latency.estimateMs(100)).toBe(400);
  });
});

describe("sharing the process's bound between batches", () => {
  it("gives each batch what it asks when everything fits", () => {
    expect(fairShares(192, new Map([["a", 32], ["b", 50]]))).toEqual(new Map([["a", 32], ["b", 50]]));
  });

  it("gives a batch asking for little what it asks and splits the rest equally between the greedy ones", () => {
    const shares = fairShares(100, new Map([["small", 10], ["big", 500], ["bigger", 2000]]));
    expect(shares).toEqual(new Map([["small", 10], ["big", 45], ["bigger", 45]]));
  });

  it("never hands out more than the bound when every batch asks for more than its share", () => {
    const shares = fairShares(10, new Map([["a", 100], ["b", 100], ["c", 100]]));
    expect([...shares.values()].reduce((sum, share) => sum + share, 0)).toBe(10);
    expect([...shares.values()].sort()).toEqual([3, 3, 4]);
  });

  it("gives every batch at least one place, even past the bound (the gate's turns keep the total)", () => {
    expect(fairShares(1, new Map([["a", 5], ["b", 5]]))).toEqual(new Map([["a", 1], ["b", 1]]));
  });

  it("the gate recomputes the shares as batches come and go", () => {
    const gate = createFairGate(192);
    expect(gate.want("fast", 2402)).toBe(192);
    expect(gate.want("slow", 50)).toBe(50);
    expect(gate.want("fast", 2402)).toBe(142);
    gate.leave("slow");
    expect(gate.want("fast", 2402)).toBe(192);
  });

  it("hands a freed place to the batch whose turn it is, not to the one that asked most", async () => {
    const gate = createFairGate(1);
    const order: string[] = [];
    const first = await gate.acquire("big");
    const ask = (batchId: string) =>
      gate.acquire(batchId).then((release) => {
        order.push(batchId);
        release();
      });
    const asked = [ask("big"), ask("big"), ask("big"), ask("small")];
    first();
    await Promise.all(asked);
    expect(order).toEqual(["big", "small", "big", "big"]);
    expect(gate.inUse()).toBe(0);
  });
});
