import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Redis } from "ioredis";

/** Per-key requests-per-second limits. No HTTP in here: callers turn a decision into headers. */

/** The length of every key's rate-limit window: the qps limit is per second. */
export const RATE_WINDOW_S = 1;

export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
};

export type RateLimiter = {
  consume(keyId: string, qpsLimit: number): Promise<RateDecision>;
  /** "absent" without REDIS_URL; "down" while Redis cannot be reached (memory takes over). */
  redisStatus(): "ok" | "absent" | "down";
  close(): Promise<void>;
};

type Limiter = RateLimiterMemory | RateLimiterRedis;

const decisionFrom = (result: RateLimiterRes, limit: number, allowed: boolean): RateDecision => ({
  allowed,
  limit,
  remaining: Math.max(0, result.remainingPoints),
  resetMs: Math.max(0, result.msBeforeNext),
});

/**
 * One limiter per distinct qps value (rate-limiter-flexible fixes points per limiter), keyed by
 * key id. With Redis, an in-memory insurance limiter answers whenever Redis is not ready, so a
 * Redis outage never fails a lookup; the Redis client reconnects by itself.
 */
export const createRateLimiter = (options: { redis?: Redis }): RateLimiter => {
  const limiters = new Map<number, Limiter>();
  const limiterFor = (qpsLimit: number): Limiter => {
    let limiter = limiters.get(qpsLimit);
    if (!limiter) {
      const memory = new RateLimiterMemory({ points: qpsLimit, duration: RATE_WINDOW_S, keyPrefix: `qps${qpsLimit}` });
      limiter = options.redis
        ? new RateLimiterRedis({
            storeClient: options.redis,
            points: qpsLimit,
            duration: RATE_WINDOW_S,
            keyPrefix: `sl:qps${qpsLimit}`,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
      limiters.set(qpsLimit, limiter);
    }
    return limiter;
  };

  return {
    consume: async (keyId, qpsLimit) => {
      try {
        return decisionFrom(await limiterFor(qpsLimit).consume(keyId, 1), qpsLimit, true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decisionFrom(rejection, qpsLimit, false);
        throw rejection;
      }
    },
    redisStatus: () => {
      if (!options.redis) return "absent";
      return options.redis.status === "ready" ? "ok" : "down";
    },
    close: async () => {
      if (options.redis) options.redis.disconnect();
    },
  };
};

/**
 * An ioredis client tuned for limiting: fail fast while disconnected, keep reconnecting.
 * A subscriber connection keeps its offline queue so that it re-subscribes after a reconnect.
 */
export const createRedisClient = async (url: string, options: { subscriber?: boolean } = {}): Promise<Redis> => {
  const { Redis: RedisClient } = await import("ioredis");
  const client = new RedisClient(url, {
    enableOfflineQueue: options.subscriber === true,
    maxRetriesPerRequest: options.subscriber ? null : 0,
    connectTimeout: 2000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 1000),
    lazyConnect: false,
  });
  client.on("error", () => {
    // Reported through redisStatus() and /api/health; the insurance limiter covers the outage.
  });
  return client;
};

/** Counts attempts (sign-ins, password checks) in Redis when configured, in memory otherwise. */
export type AttemptLimiter = {
  consume(key: string): Promise<RateLimiterRes>;
  /** Gives one point back (an attempt that turned out not to count). */
  reward(key: string): Promise<void>;
  delete(key: string): Promise<void>;
};

let attemptRedis: Promise<Redis> | undefined;

/**
 * Attempt limits must hold across instances (5 sign-ins per account means 5, not 5 per
 * instance), so with a Redis URL they are kept there, with memory as insurance while Redis is
 * down. Rejections are RateLimiterRes, as with rate-limiter-flexible itself.
 */
export const createAttemptLimiter = (options: {
  keyPrefix: string;
  points: number;
  durationS: number;
  redisUrl: () => string | undefined;
}): AttemptLimiter => {
  const memory = new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: options.points, duration: options.durationS });
  let limiter: Promise<RateLimiterMemory | RateLimiterRedis> | undefined;
  const get = () => {
    limiter ??= (async () => {
      const url = options.redisUrl();
      if (!url) return memory;
      attemptRedis ??= createRedisClient(url);
      return new RateLimiterRedis({
        storeClient: await attemptRedis,
        keyPrefix: `sl:${options.keyPrefix}`,
        points: options.points,
        duration: options.durationS,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      });
    })();
    return limiter;
  };
  return {
    consume: async (key) => (await get()).consume(key),
    reward: async (key) => {
      await (await get()).reward(key, 1);
    },
    delete: async (key) => {
      await (await get()).delete(key);
    },
  };
};
