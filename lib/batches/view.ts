import type { CreatedBatch } from "./batches";
import { batchCounts, type BatchCounts, type BatchRow, type BatchStatus, type StopReason } from "./repository";
import type { BatchWebhookStatus } from "./webhook";

/** A batch as the console API shows it (GET /api/batches/{id}). */
export type BatchView = {
  id: string;
  operation: string;
  status: BatchStatus;
} & BatchCounts & {
  startedAt: string | null;
  finishedAt: string | null;
  // Beyond the fields above: what the page shows besides.
  createdAt: string;
  maxCostCredits: number;
  maxPages: number;
  /** Why a stopped batch stopped: the cap, the key's credits, or the console key itself. */
  stopReason: StopReason | null;
  /** Seconds left at the pace so far; null before the first input is done or once it ended. */
  etaSeconds: number | null;
  retryOf: string | null;
  /** The user it belongs to; null: the API key that made it belongs to no user (the batch is the key's). */
  ownerId: string | null;
  /** Created under /v1 by this API key (it pays); null: with the console key. */
  keyId: string | null;
  /** Oldest cached upstream answer accepted, in seconds; null: the operator's TTLs. */
  maxAgeS: number | null;
  /** The last batch.finished delivery, when one was sent (single-batch reads only). */
  webhook?: BatchWebhookStatus | null;
};

const etaSeconds = (row: BatchRow, now: number): number | null => {
  if (row.status !== "running" && row.status !== "queued") return null;
  if (row.started_at === null || row.done === 0) return null;
  const elapsedS = Math.max(0.001, (now - row.started_at.getTime()) / 1000);
  return Math.ceil(((row.total - row.done) * elapsedS) / row.done);
};

export const batchView = (row: BatchRow, now = Date.now()): BatchView => ({
  id: row.id,
  operation: row.operation,
  status: row.status,
  ...batchCounts(row),
  startedAt: row.started_at?.toISOString() ?? null,
  finishedAt: row.finished_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
  maxCostCredits: row.max_cost_credits,
  maxPages: row.max_pages,
  stopReason: row.stop_reason,
  etaSeconds: etaSeconds(row, now),
  retryOf: row.retry_of,
  ownerId: row.user_id,
  keyId: row.key_id,
  maxAgeS: row.max_age_s,
});

/** What creating a batch answers (POST /api/batches, and retrying a batch's failed inputs). */
export const createdBatchView = (created: CreatedBatch) => ({
  id: created.batch.id,
  status: created.batch.status,
  total: created.batch.total,
  rejected: created.rejected,
  maxCostCredits: created.batch.max_cost_credits,
  duplicates: created.duplicates,
  maxCredits: created.batch.max_credits,
});

/** One lookup of a batch in the results table. */
export type BatchItemView = {
  position: number;
  page: number;
  input: string;
  state: "pending" | "in_flight" | "done";
  httpStatus: number | null;
  creditsCharged: number;
  /** The record's key fields (200) or the API's message (404, 500…). */
  detail: string | null;
};
