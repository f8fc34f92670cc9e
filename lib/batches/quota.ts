import type { Queryable } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";

/**
 * What one owner may keep open, so that nobody can queue unbounded work: at most `maxOpenBatches`
 * batches queued or running, and at most `maxOpenInputs` inputs not yet done over all their
 * unfinished batches (queued, running, paused or stopped — work that still holds rows and may run
 * again). Cancelling a batch frees both. The owner is the user a batch belongs to; a batch made
 * with an API key that belongs to no user (an operator's key from the key CLI) is that key's own,
 * and the key's batches are counted on their own.
 *
 * Every path that creates or requeues a batch — the console, /v1/batches and the MCP tools — calls
 * `claimBatchRoom` inside the transaction that writes the batch: it locks the owner's row first, so
 * two requests of the same owner are counted one after the other and can never both slip under
 * the limit (no read-then-write race across transactions).
 */
export type BatchQuota = { maxOpenBatches: number; maxOpenInputs: number };

export type OpenWork = { openBatches: number; openInputs: number };

/** Whose open work a batch counts towards: its user's, or an ownerless key's. */
export type QuotaHolder = { kind: "user"; userId: string } | { kind: "key"; keyId: string };

/** The holder of a batch as stored: its user, else the key that made it. */
export const quotaHolderOf = (owner: { userId: string | null; keyId: string | null }): QuotaHolder => {
  if (owner.userId !== null) return { kind: "user", userId: owner.userId };
  if (owner.keyId !== null) return { kind: "key", keyId: owner.keyId };
  throw new Error("a batch belongs to a user or to an API key");
};

const formatCount = (value: number): string => value.toLocaleString("en-US");

/** The holder's open work now; call with the holder's row locked (claimBatchRoom does). */
const openWork = async (tx: Queryable, holder: QuotaHolder): Promise<OpenWork> => {
  const owned = holder.kind === "user" ? "user_id = $1" : "user_id IS NULL AND key_id = $1";
  const rows = await tx.query<{ open_batches: number | string; open_inputs: number | string }>(
    `SELECT count(*) FILTER (WHERE status IN ('queued', 'running')) AS open_batches,
            COALESCE(sum(GREATEST(total - done, 0)), 0) AS open_inputs
     FROM batches WHERE ${owned} AND status IN ('queued', 'running', 'paused', 'stopped')`,
    [holder.kind === "user" ? holder.userId : holder.keyId],
  );
  const row = rows[0];
  return { openBatches: Number(row?.open_batches ?? 0), openInputs: Number(row?.open_inputs ?? 0) };
};

/** Serialises the holder's claims. A key's row is locked without blocking the rows that refer to it (usage records). */
const lockHolder = async (tx: Queryable, holder: QuotaHolder): Promise<void> => {
  if (holder.kind === "user") await tx.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [holder.userId]);
  else await tx.query("SELECT 1 FROM api_keys WHERE id = $1 FOR NO KEY UPDATE", [holder.keyId]);
};

/**
 * Room for one more open batch of `newInputs` inputs (0 when a batch already counted is resumed),
 * or a DomainError "quota_exceeded" whose sentence says how much is open and how to free room.
 */
export const claimBatchRoom = async (tx: Queryable, holder: QuotaHolder, newInputs: number, quota: BatchQuota): Promise<OpenWork> => {
  await lockHolder(tx, holder);
  const open = await openWork(tx, holder);
  const [you, one] = holder.kind === "user" ? ["You have", "one user"] : ["This key has", "one key without an owner"];
  if (open.openBatches >= quota.maxOpenBatches) {
    throw new DomainError(
      "quota_exceeded",
      `${you} ${formatCount(open.openBatches)} batches queued or running, the most ${one} may have ` +
        `(${formatCount(quota.maxOpenBatches)}). Wait for one to finish, or cancel one to make room.`,
    );
  }
  if (open.openInputs + newInputs > quota.maxOpenInputs) {
    throw new DomainError(
      "quota_exceeded",
      `${you} ${formatCount(open.openInputs)} inputs not yet done in open batches; this batch adds ` +
        `${formatCount(newInputs)}, over the ${formatCount(quota.maxOpenInputs)} ${one} may have open. ` +
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
