import { describeError, log } from "@/lib/log";
import { services } from "@/lib/services";

export type HealthReport = {
  status: "ok" | "degraded";
  database: "ok" | "down";
  redis: "ok" | "absent" | "down";
};

/** Database and Redis reachability; Redis being down degrades nothing but is reported. */
export const healthReport = async (): Promise<HealthReport> => {
  try {
    const deps = await services();
    const database = await (await deps.db())
      .query("SELECT 1")
      .then(() => "ok" as const)
      .catch((error: unknown) => {
        log.warn("health: database unreachable", { error: describeError(error) });
        return "down" as const;
      });
    return { status: database === "ok" ? "ok" : "degraded", database, redis: deps.limiter.redisStatus() };
  } catch (error) {
    log.warn("health: services unavailable", { error: describeError(error) });
    return { status: "degraded", database: "down", redis: "absent" };
  }
};
