import type { BatchView } from "@/lib/query/batches";

// A fixed locale keeps server and browser output identical (no hydration mismatch).
const numberFormat = new Intl.NumberFormat("en-US");

export const formatNumber = (value: number): string => numberFormat.format(value);

export const formatEta = (seconds: number | null): string => {
  if (seconds === null) return "—";
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
};

export const statusLabel = (batch: Pick<BatchView, "status" | "stopReason">): string => {
  if (batch.status !== "stopped") return batch.status.charAt(0).toUpperCase() + batch.status.slice(1);
  switch (batch.stopReason) {
    case "cap":
      return "Stopped at the cap";
    case "credits":
      return "Stopped: key out of credits";
    case "key":
      return "Stopped: no usable console key";
    default:
      return "Stopped";
  }
};

export const statusVariant = (status: BatchView["status"]): "neutral" | "accent" | "success" | "warning" | "danger" => {
  switch (status) {
    case "running":
    case "queued":
      return "accent";
    case "done":
      return "success";
    case "paused":
    case "stopped":
      return "warning";
    default:
      return "neutral";
  }
};
