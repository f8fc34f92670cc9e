import { createRedisClient } from "@/lib/ratelimit/limiter";

/** The machine's Redis, which tests that need one use when it answers. */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

export const redisReachable = async (url: string = LOCAL_REDIS_URL): Promise<boolean> => {
  const probe = await createRedisClient(url);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
};
