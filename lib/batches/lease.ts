import type { Db, Queryable } from "@/lib/db/client";
import { BATCH_COLUMNS, normaliseBatch, type BatchRow, type StopReason } from "./repository";

/**
 * The runner's statements. A batch runs on the instance that holds its lease; every write that
 * moves it forward names that instance, so a runner that lost its lease (paused, taken over)
 * changes nothing. Each is one statement or one transaction: a crash between two of them
 * leaves a state the next claim can read.
 */
const leaseInterval = "($3::integer * interval '1 millisecond')";

/**
 * Takes the oldest runnable batch no instance holds: queued, or running with a lapsed lease
 * (its instance died). Skips batches another instance is claiming right now (SKIP LOCKED) and
 * users who already have their share of batches running.
 */
export const claimBatch = async (db: Queryable, owner: string, leaseMs: number, perUser: number): Promise<BatchRow | null> => {
  const rows = await db.query<BatchRow>(
    `UPDATE batches SET status = 'running', lease_owner = $1, lease_expires_at = now() + ${leaseInterval},
       started_at = COALESCE(started_at, now()), updated_at = now()
     WHERE id = (
       SELECT b.id FROM batches b
       WHERE b.status IN ('queued', 'running') AND (b.lease_expires_at IS NULL OR b.lease_expires_at < now())
         AND (SELECT count(*) FROM batches o
              WHERE o.user_id = b.user_id AND o.id <> b.id AND o.status = 'running' AND o.lease_expires_at >= now()) < $2
       ORDER BY b.created_at, b.id
       LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING ${BATCH_COLUMNS}`,
    [owner, perUser, leaseMs],
  );
  const row = rows[0];
  return row ? normaliseBatch(row) : null;
};

/** Extends the lease; false when this instance no longer holds it. */
export const renewLease = async (db: Queryable, batchId: string, owner: string, leaseMs: number): Promise<boolean> =>
  (
    await db.query(
      `UPDATE batches SET lease_expires_at = now() + ${leaseInterval} WHERE id = $1 AND lease_owner = $2 RETURNING id`,
      [batchId, owner, leaseMs],
    )
  ).length > 0;

export const releaseLease = async (db: Queryable, batchId: string, owner: string): Promise<void> => {
  await db.query("UPDATE batches SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2", [batchId, owner]);
};

/** The embedded database admits one process: at its start every lease is a dead process's. */
export const releaseAllLeases = async (db: Queryable): Promise<void> => {
  await db.query("UPDATE batches SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner IS NOT NULL");
};

export type OpenItem = {
  position: number;
  page: number;
  query: string;
  state: "pending" | "in_flight";
  attempt_id: string | null;
  attempt_started_at: Date | null;
  key_id: string | null;
};

export const nextOpenItem = async (db: Queryable, batchId: string): Promise<OpenItem | null> => {
  const rows = await db.query<OpenItem>(
    `SELECT position, page, query, state, attempt_id::text AS attempt_id, attempt_started_at, key_id FROM batch_items
     WHERE batch_id = $1 AND state <> 'done' ORDER BY position, page LIMIT 1`,
    [batchId],
  );
  return rows[0] ?? null;
};

export const inFlightItems = (db: Queryable, batchId: string): Promise<OpenItem[]> =>
  db.query<OpenItem>(
    `SELECT position, page, query, state, attempt_id::text AS attempt_id, attempt_started_at, key_id FROM batch_items
     WHERE batch_id = $1 AND state = 'in_flight' ORDER BY position, page`,
    [batchId],
  );

export type AttemptStart = { kind: "started" } | { kind: "cap" } | { kind: "lost" };

/**
 * Marks the page in flight, reserving its cost against the cap: only while this instance holds
 * the running batch and the credits spent plus this lookup stay within the cap. The lease is
 * renewed by the same statement.
 */
export const beginAttempt = async (
  db: Queryable,
  input: { batchId: string; owner: string; leaseMs: number; item: OpenItem; attemptId: string; keyId: string; costCredits: number },
): Promise<AttemptStart> => {
  const started = await db.query(
    `WITH b AS (
       UPDATE batches SET lease_expires_at = now() + ${leaseInterval}
       WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND credits_spent + $8 <= max_credits
       RETURNING id)
     UPDATE batch_items SET state = 'in_flight', attempt_id = $6::uuid, attempt_started_at = now(), key_id = $7
     WHERE batch_id IN (SELECT id FROM b) AND position = $4 AND page = $5 AND state = 'pending'
     RETURNING position`,
    [input.batchId, input.owner, input.leaseMs, input.item.position, input.item.page, input.attemptId, input.keyId, input.costCredits],
  );
  if (started.length > 0) return { kind: "started" };
  const rows = await db.query<{ held: boolean; over_cap: boolean }>(
    `SELECT lease_owner = $2 AND status = 'running' AS held, credits_spent + $3 > max_credits AS over_cap FROM batches WHERE id = $1`,
    [input.batchId, input.owner, input.costCredits],
  );
  const row = rows[0];
  return row?.held && row.over_cap ? { kind: "cap" } : { kind: "lost" };
};

/** Puts an attempt that was not charged (429, 402, 401) back in line. */
export const abandonAttempt = async (db: Queryable, batchId: string, item: OpenItem, attemptId: string): Promise<void> => {
  await db.query(
    `UPDATE batch_items SET state = 'pending', attempt_id = NULL, attempt_started_at = NULL
     WHERE batch_id = $1 AND position = $2 AND page = $3 AND state = 'in_flight' AND attempt_id = $4::uuid`,
    [batchId, item.position, item.page, attemptId],
  );
};

export type InputOutcome = "succeeded" | "not_found" | "failed";

export type AttemptResult = {
  httpStatus: number;
  creditsCharged: number;
  requestId: string | null;
  message: string | null;
  summary: string | null;
  data: string | null;
  /** The query of the next page to look up, or null when this input is finished. */
  nextQuery: string | null;
  /** How the input ended, when this was its last page. */
  outcome: InputOutcome | null;
};

/**
 * Records an attempt's answer, its charge and what follows, in one transaction: the page done,
 * the batch's credits and counters, the next page or the input's outcome. Only the attempt that
 * is still in flight is recorded, so two writers (a slow runner and its successor) cannot both
 * count it. Returns false when it was recorded already.
 */
export const recordAttempt = (db: Db, batchId: string, item: OpenItem, attemptId: string, result: AttemptResult): Promise<boolean> =>
  db.transaction(async (tx) => {
    const updated = await tx.query(
      `UPDATE batch_items SET state = 'done', http_status = $5, credits_charged = $6, request_id = $7::uuid, message = $8,
         summary = $9, data = $10, finished_at = now()
       WHERE batch_id = $1 AND position = $2 AND page = $3 AND state = 'in_flight' AND attempt_id = $4::uuid
       RETURNING position`,
      [batchId, item.position, item.page, attemptId, result.httpStatus, result.creditsCharged, result.requestId, result.message, result.summary, result.data],
    );
    if (updated.length === 0) return false;
    if (result.nextQuery !== null) {
      await tx.query(
        "INSERT INTO batch_items (batch_id, position, page, query) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        [batchId, item.position, item.page + 1, result.nextQuery],
      );
    }
    const finished =
      result.outcome !== null &&
      (
        await tx.query(
          "UPDATE batch_inputs SET outcome = $3 WHERE batch_id = $1 AND position = $2 AND outcome IS NULL RETURNING position",
          [batchId, item.position, result.outcome],
        )
      ).length > 0;
    await tx.query(
      `UPDATE batches SET credits_spent = credits_spent + $2, updated_at = now(),
         done = done + $3, succeeded = succeeded + $4, not_found = not_found + $5, failed = failed + $6
       WHERE id = $1`,
      [
        batchId,
        result.creditsCharged,
        finished ? 1 : 0,
        finished && result.outcome === "succeeded" ? 1 : 0,
        finished && result.outcome === "not_found" ? 1 : 0,
        finished && result.outcome === "failed" ? 1 : 0,
      ],
    );
    return true;
  });

/** Done when nothing is left to look up; only while this instance runs it. */
export const finishBatch = async (db: Queryable, batchId: string, owner: string): Promise<boolean> =>
  (
    await db.query(
      `UPDATE batches SET status = 'done', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
       WHERE id = $1 AND lease_owner = $2 AND status = 'running'
         AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = $1 AND state <> 'done')
       RETURNING id`,
      [batchId, owner],
    )
  ).length > 0;

export const stopBatch = async (db: Queryable, batchId: string, owner: string, reason: StopReason): Promise<void> => {
  await db.query(
    `UPDATE batches SET status = 'stopped', stop_reason = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
    [batchId, owner, reason],
  );
};

/**
 * An attempt cut short (its instance died between the lookup and recordAttempt): the usage
 * record of a charged answer for the same key, operation and query since the attempt began,
 * that no batch page has claimed. Null when there is none: the lookup was never charged.
 */
export const chargedUsageSince = async (
  db: Queryable,
  input: { keyId: string; operation: string; paramsSummary: string; since: Date },
): Promise<{ request_id: string; credits_charged: number } | null> => {
  const rows = await db.query<{ request_id: string; credits_charged: number }>(
    `SELECT u.request_id::text AS request_id, u.credits_charged FROM usage_events u
     WHERE u.key_id = $1 AND u.operation = $2 AND u.params_summary = $3 AND u.status = 200
       AND u.created_at >= $4::timestamptz - interval '2 seconds'
       AND NOT EXISTS (SELECT 1 FROM batch_items i WHERE i.request_id = u.request_id)
     ORDER BY u.id LIMIT 1`,
    [input.keyId, input.operation, input.paramsSummary, input.since],
  );
  return rows[0] ?? null;
};
