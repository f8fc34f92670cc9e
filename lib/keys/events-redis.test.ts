import { afterAll, describe, expect, it } from "vitest";
import { createRedisClient } from "@/lib/ratelimit/limiter";
import { keyChanged, onKeyChanged } from "./events";
import { connectKeyChangesOverRedis } from "./events-redis";
import { LOCAL_REDIS_URL, redisReachable } from "@/tests/support/redis";

const REDIS_URL = LOCAL_REDIS_URL;

const redisUp = await redisReachable();
if (!redisUp) console.log("SKIPPED: Redis key-change fan-out — 127.0.0.1:6379 not reachable");

describe.skipIf(!redisUp)("key changes across instances (Redis pub/sub)", () => {
  const clients: { disconnect(): void }[] = [];
  afterAll(() => clients.forEach((client) => client.disconnect()));

  it("publishes local changes and applies changes from other instances", async () => {
    const publisher = await createRedisClient(REDIS_URL);
    const subscriber = await createRedisClient(REDIS_URL, { subscriber: true });
    const otherInstance = await createRedisClient(REDIS_URL, { subscriber: true });
    const otherPublisher = await createRedisClient(REDIS_URL);
    clients.push(publisher, subscriber, otherInstance, otherPublisher);
    connectKeyChangesOverRedis(publisher, subscriber);

    const seenElsewhere: string[] = [];
    otherInstance.on("message", (_channel: string, message: string) => seenElsewhere.push(message));
    await otherInstance.subscribe("social-lookup:key-changed");
    const seenHere: (string | null)[] = [];
    const stop = onKeyChanged((keyId) => seenHere.push(keyId));
    await new Promise((resolve) => setTimeout(resolve, 200));

    keyChanged("key_local");
    await otherPublisher.publish("social-lookup:key-changed", "key_remote");
    await otherPublisher.publish("social-lookup:key-changed", "*");
    await expect.poll(() => seenElsewhere, { timeout: 2000 }).toContain("key_local");
    await expect.poll(() => seenHere, { timeout: 2000 }).toEqual(expect.arrayContaining(["key_local", "key_remote", null]));
    stop();
  });
});
