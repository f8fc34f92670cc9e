import crypto from "node:crypto";
import type { Redis } from "ioredis";
import { KEEP_MS, WINDOW_MS, type LogDecision } from "./sliding-log";

/**
 * The sliding log of sliding-log.ts in Redis, shared by every instance: one sorted set per key
 * (score: the admission's time in ms), decided and written by one Lua script, so two instances
 * can never both take the last slot. Times come from the instances (the request's start); their
 * clocks must agree (NTP), as they must for usage records.
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[4]))
local low = '(' .. (now - window)
local count = redis.call('ZCOUNT', KEYS[1], low, '(' .. (now + window))
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
  local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], low, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return {1, count + 1, oldest[2]}
end
local nth = redis.call('ZRANGEBYSCORE', KEYS[1], low, '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
return {0, count, nth[2]}
`;

const SHA = crypto.createHash("sha1").update(SCRIPT).digest("hex");

type Reply = [number, number, string | undefined];

const isReply = (value: unknown): value is Reply =>
  Array.isArray(value) && typeof value[0] === "number" && typeof value[1] === "number";

export type RedisSlidingLog = { consume(keyId: string, limit: number, nowMs: number): Promise<LogDecision> };

export const createRedisSlidingLog = (redis: Redis): RedisSlidingLog => {
  // Unique per admission within this process; the prefix keeps instances apart.
  const instance = crypto.randomBytes(6).toString("base64url");
  let sequence = 0;
  return {
    consume: async (keyId, limit, nowMs) => {
      sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
      const args = [`sl:rate:${keyId}`, nowMs, limit, WINDOW_MS, KEEP_MS, `${instance}:${sequence}`];
      let reply: unknown;
      try {
        reply = await redis.evalsha(SHA, 1, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
        reply = await redis.eval(SCRIPT, 1, ...args);
      }
      if (!isReply(reply)) throw new Error("unexpected reply from the rate-limit script");
      const [allowed, count, edge] = reply;
      const edgeMs = edge === undefined ? nowMs : Number(edge);
      return { allowed: allowed === 1, count, resetMs: Math.max(0, edgeMs + WINDOW_MS - nowMs) };
    },
  };
};
