import { log } from "@/lib/log";
import type { DataConnector } from "@/lib/connectors/select";
import { services } from "@/lib/services";

export type HealthReport = {
  status: "ok" | "degraded";
  database: "ok" | "down";
  redis: "ok" | "absent" | "down";
  /** The upstream provider as this instance sees it: absent (DATA_SOURCE=store), the breaker open, or degraded. */
  upstream: UpstreamHealth;
};

export type UpstreamHealth = "ok" | "absent" | "degraded" | "open";

/**
 * An open breaker is reported but degrades nothing here: cached and stored records are still
 * served. "degraded": the breaker is probing, or the last shared-key call was refused or failed.
 */
const upstreamHealth = (connector: DataConnector): UpstreamHealth => {
  if (!connector.upstream) return "absent";
  const status = connector.upstream.status();
  if (status.breaker.state === "open") return "open";
  if (status.breaker.state === "half-open") return "degraded";
  return status.status === "idle" || status.status === "ok" ? "ok" : "degraded";
};

/** Database and Redis reachability; Redis being down degrades nothing but is reported. */
export const healthReport = async (): Promise<HealthReport> => {
  try {
    const deps = await services();
    const database = await (await deps.db())
      .query("SELECT 1")
      .then(() => "ok" as const)
      .catch((error: unknown) => {
        log.warn("health: database unreachable", { err: error });
        return "down" as const;
      });
    return {
      status: database === "ok" ? "ok" : "degraded",
      database,
      redis: deps.limiter.redisStatus(),
      upstream: upstreamHealth(deps.connector),
    };
  } catch (error) {
    log.warn("health: services unavailable", { err: error });
    return { status: "degraded", database: "down", redis: "absent", upstream: "absent" };
  }
};
