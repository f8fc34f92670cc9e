import { describe, expect, it } from "vitest";
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
