import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Redis } from "ioredis";
import { createMemorySlidingLog, type LogDecision } from "./sliding-log";
import { createRedisSlidingLog } from "./sliding-log-redis";

/** Per-key requests-per-second limits. No HTTP in here: callers turn a decision into headers. */

/** The length of every key's rate-limit window: the qps limit is per second. */
export const RATE_WINDOW_S = 1;

export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until a slot frees (refused: until this request would have been admitted). */
  resetMs: number;
};

export type RateLimiter = {
  /** nowMs: when the request started (the log's clock); now by default. */
  consume(keyId: string, qpsLimit: number, nowMs?: number): Promise<RateDecision>;
  /** "absent" without REDIS_URL; "down" while Redis cannot be reached (memory takes over). */
  redisStatus(): "ok" | "absent" | "down";
  close(): Promise<void>;
};

const decisionFrom = (log: LogDecision, limit: number): RateDecision => ({
  allowed: log.allowed,
  limit,
  remaining: Math.max(0, limit - log.count),
  resetMs: log.resetMs,
});

/**
 * An exact sliding window per key (lib/ratelimit/sliding-log.ts): in no 1,000 ms are more than
 * the key's limit admitted. With Redis the log is shared by every instance; whenever Redis is not
 * ready, or a call fails, an in-memory log answers instead, so a Redis outage never fails a
 * lookup (the limit then holds per instance); the Redis client reconnects by itself.
 */
export const createRateLimiter = (options: { redis?: Redis }): RateLimiter => {
  const memory = createMemorySlidingLog();
  const shared = options.redis ? createRedisSlidingLog(options.redis) : null;

  return {
    consume: async (keyId, qpsLimit, nowMs = Date.now()) => {
      if (shared && options.redis?.status === "ready") {
        try {
          return decisionFrom(await shared.consume(keyId, qpsLimit, nowMs), qpsLimit);
        } catch {
          // Reported through redisStatus() and /api/health; memory covers the call.
        }
      }
      return decisionFrom(memory.consume(keyId, qpsLimit, nowMs), qpsLimit);
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
