import { z } from "zod";
import type { SystemSnapshot } from "./view";

/**
 * A row's snapshot as this version reads it. Instances of different versions share the table
 * during a rolling upgrade, so a row is checked, never trusted: one this version cannot read
 * shows the instance without figures.
 */
const count = z.number().finite().nonnegative();
const measured = count.nullable();

export const systemSnapshotSchema = z.object({
  format: z.literal(1),
  version: z.string(),
  buildId: z.string().nullable(),
  nodeVersion: z.string(),
  database: z.enum(["pglite", "postgres"]),
  uptimeS: count,
  readiness: z.object({ ready: z.boolean(), checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string(), configured: z.boolean().optional() })) }).nullable(),
  readinessError: z.string().nullable(),
  metrics: z.enum(["on", "off"]),
  figures: z
    .object({
      windowS: count,
      requestsTotal: count,
      requestsInWindow: count,
      requestsPerSecond: count,
      errorRate: measured,
      non200Rate: measured,
      p50LatencyMs: measured,
      p99LatencyMs: measured,
      batchesQueued: measured,
      batchesRunning: measured,
      batchesRunningHere: measured,
      dbWorkerQueueDepth: measured,
      eventLoopLagMs: measured,
      eventLoopLagP99Ms: measured,
    })
    .nullable(),
}) satisfies z.ZodType<SystemSnapshot>;

export const readSnapshot = (value: unknown): SystemSnapshot | null => {
  const text = typeof value === "string" ? safeJson(value) : value;
  const parsed = systemSnapshotSchema.safeParse(text);
  return parsed.success ? parsed.data : null;
};

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};
