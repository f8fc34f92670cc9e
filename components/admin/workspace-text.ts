import { formatCount } from "@/components/keys/format";
import type { PoolRefill } from "@/lib/query/workspace-admin";

/** A pool's refill in words, as the list and the drawer say it. */
export const refillText = (refill: PoolRefill | null): string => {
  if (refill === null) return "no refill";
  const how = refill.mode === "top_up_to" ? `up to ${formatCount(refill.credits)}` : `+${formatCount(refill.credits)}`;
  if (refill.interval === "daily") return `${how} daily`;
  return `${how} monthly${refill.dayOfMonth === null || refill.dayOfMonth === 1 ? "" : ` (day ${refill.dayOfMonth})`}`;
};

/** The shared requests-per-second limit in words. */
export const limitText = (qpsLimit: number | null): string => (qpsLimit === null ? "none" : `${formatCount(qpsLimit)}/s`);
