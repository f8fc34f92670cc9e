import type { Queryable } from "@/lib/db/client";
import { BatchError } from "./errors";

/**
 * What one user may keep open, so that nobody can queue unbounded work (issue: batch quotas):
 * at most `maxOpenBatches` batches queued or running, and at most `maxOpenInputs` inputs not yet
 * done over all their unfinished batches (queued, running, paused or stopped — work that still
 * holds rows and may run again). Cancelling a batch frees both.
 *
 * Every path that creates or requeues a batch — the console today, /v1/batches alike — calls
 * `claimBatchRoom` inside the transaction that writes the batch: it locks the user's row first, so
 * two requests of the same user are counted one after the other and can never both slip under
 * the limit (no read-then-write race across transactions).
 */
export type BatchQuota = { maxOpenBatches: number; maxOpenInputs: number };

export type OpenWork = { openBatches: number; openInputs: number };

const formatCount = (value: number): string => value.toLocaleString("en-US");

/** The user's open work now; call with the user's row locked (claimBatchRoom does). */
const openWork = async (tx: Queryable, userId: string): Promise<OpenWork> => {
  const rows = await tx.query<{ open_batches: number | string; open_inputs: number | string }>(
    `SELECT count(*) FILTER (WHERE status IN ('queued', 'running')) AS open_batches,
            COALESCE(sum(GREATEST(total - done, 0)), 0) AS open_inputs
     FROM batches WHERE user_id = $1 AND status IN ('queued', 'running', 'paused', 'stopped')`,
    [userId],
  );
  const row = rows[0];
  return { openBatches: Number(row?.open_batches ?? 0), openInputs: Number(row?.open_inputs ?? 0) };
};

/**
 * Room for one more open batch of `newInputs` inputs (0 when a batch already counted is resumed),
 * or a BatchError "quota_exceeded" whose sentence says how much is open and how to free room.
 */
export const claimBatchRoom = async (tx: Queryable, userId: string, newInputs: number, quota: BatchQuota): Promise<OpenWork> => {
  await tx.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [userId]);
  const open = await openWork(tx, userId);
  if (open.openBatches >= quota.maxOpenBatches) {
    throw new BatchError(
      "quota_exceeded",
      `You have ${formatCount(open.openBatches)} batches queued or running, the most one user may have ` +
        `(${formatCount(quota.maxOpenBatches)}). Wait for one to finish, or cancel one to make room.`,
    );
  }
  if (open.openInputs + newInputs > quota.maxOpenInputs) {
    throw new BatchError(
      "quota_exceeded",
      `You have ${formatCount(open.openInputs)} inputs not yet done in open batches; this batch adds ` +
        `${formatCount(newInputs)}, over the ${formatCount(quota.maxOpenInputs)} one user may have open. ` +
        `Wait for batches to finish, or cancel one to free room.`,
    );
  }
  return open;
};

/** The quota the environment sets (BATCH_MAX_OPEN_PER_USER, BATCH_MAX_OPEN_INPUTS_PER_USER). */
export const batchQuotaOf = (config: { BATCH_MAX_OPEN_PER_USER: number; BATCH_MAX_OPEN_INPUTS_PER_USER: number }): BatchQuota => ({
  maxOpenBatches: config.BATCH_MAX_OPEN_PER_USER,
  maxOpenInputs: config.BATCH_MAX_OPEN_INPUTS_PER_USER,
});
