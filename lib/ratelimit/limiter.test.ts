import { describe, expect, it } from "vitest";
import { LOCAL_REDIS_URL, redisReachable } from "@/tests/support/redis";
import { createRateLimiter, createRedisClient } from "./limiter";

describe("per-key rate limiter", () => {
  it("admits qps requests per second per key and reports the window", async () => {
    const limiter = createRateLimiter({});
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.consume("key_a", 3)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    const refused = decisions.find((d) => !d.allowed);
    expect(refused).toMatchObject({ limit: 3, remaining: 0 });
    expect(refused?.resetMs).toBeGreaterThan(0);
    expect(refused?.resetMs).toBeLessThanOrEqual(1000);
    expect((await limiter.consume("key_b", 3)).allowed).toBe(true);
    expect(limiter.redisStatus()).toBe("absent");
  });

  it("keeps limiting from memory when Redis cannot be reached", async () => {
    const redis = await createRedisClient("redis://127.0.0.1:1");
    const limiter = createRateLimiter({ redis });
    const decisions = await Promise.all(Array.from({ length: 4 }, () => limiter.consume("key_c", 2)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(2);
    expect(limiter.redisStatus()).toBe("down");
    await limiter.close();
  });
});

describe("the sliding window", () => {
  it("never admits more than the limit in any 1,000 ms, across what a fixed window would reset", async () => {
    const limiter = createRateLimiter({});
    const admitted: number[] = [];
    // 20/s for 5 s against a limit of 10, on a clock of our own: a fixed window admits 20 around each boundary.
    for (let at = 0; at < 5000; at += 50) {
      if ((await limiter.consume("key_s", 10, 1_000_000 + at)).allowed) admitted.push(at);
    }
    const busiest = Math.max(...admitted.map((from) => admitted.filter((at) => at >= from && at < from + 1000).length));
    expect(busiest).toBe(10);
    expect(admitted.length).toBeGreaterThanOrEqual(45);
  });

  it("tells a refused request when it would be admitted, and counts down what is left", async () => {
    const limiter = createRateLimiter({});
    const first = await limiter.consume("key_t", 2, 10_000);
    expect(first).toMatchObject({ allowed: true, remaining: 1, resetMs: 1000 });
    expect(await limiter.consume("key_t", 2, 10_300)).toMatchObject({ allowed: true, remaining: 0, resetMs: 700 });
    expect(await limiter.consume("key_t", 2, 10_400)).toMatchObject({ allowed: false, remaining: 0, resetMs: 600 });
    expect(await limiter.consume("key_t", 2, 10_999)).toMatchObject({ allowed: false, resetMs: 1 });
    expect(await limiter.consume("key_t", 2, 11_000)).toMatchObject({ allowed: true, remaining: 0, resetMs: 300 });
  });

  it("holds when requests reach it out of time order", async () => {
    const limiter = createRateLimiter({});
    expect((await limiter.consume("key_u", 1, 5_000)).allowed).toBe(true);
    // Started earlier, arrived later: within 1,000 ms of the admitted one, so refused.
    expect((await limiter.consume("key_u", 1, 4_200)).allowed).toBe(false);
    expect((await limiter.consume("key_u", 1, 6_000)).allowed).toBe(true);
  });
});

const redisUp = await redisReachable();

describe.skipIf(!redisUp)("the sliding window in Redis", () => {
  it("is shared: two limiters on one Redis admit the limit between them, exactly", async () => {
    const url = LOCAL_REDIS_URL;
    const [a, b] = [createRateLimiter({ redis: await createRedisClient(url) }), createRateLimiter({ redis: await createRedisClient(url) })];
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(a.redisStatus()).toBe("ok");
    const keyId = `key_r_${Math.random().toString(36).slice(2)}`;
    const base = Date.now();
    const decisions = [];
    for (let at = 0; at < 3000; at += 50) decisions.push(await (at % 100 === 0 ? a : b).consume(keyId, 5, base + at));
    const admitted = decisions.flatMap((decision, index) => (decision.allowed ? [index * 50] : []));
    const busiest = Math.max(...admitted.map((from) => admitted.filter((at) => at >= from && at < from + 1000).length));
    expect(busiest).toBe(5);
    expect(admitted).toHaveLength(15);
    const refused = decisions.find((decision) => !decision.allowed);
    expect(refused?.resetMs).toBeGreaterThan(0);
    expect(refused?.resetMs).toBeLessThanOrEqual(1000);
    await a.close();
    await b.close();
  });
});
