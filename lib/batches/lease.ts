import type { Queryable } from "@/lib/db/client";
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

/** Pages left in flight, with how long ago (database clock) their attempt began. */
export const inFlightItems = async (db: Queryable, batchId: string): Promise<(OpenItem & { age_ms: number })[]> =>
  (
    await db.query<OpenItem & { age_ms: number | string }>(
      `SELECT position, page, query, state, attempt_id::text AS attempt_id, attempt_started_at, key_id,
         (EXTRACT(EPOCH FROM (now() - attempt_started_at)) * 1000)::bigint AS age_ms
       FROM batch_items WHERE batch_id = $1 AND state = 'in_flight' ORDER BY position, page`,
      [batchId],
    )
  ).map((row) => ({ ...row, age_ms: Number(row.age_ms) }));

export type AttemptStart =
  | { kind: "started"; item: OpenItem }
  /** Nothing left to look up. */
  | { kind: "finished" }
  /** Pages left, but every one is in flight (the next page of an input waits for its previous). */
  | { kind: "busy" }
  /** The cap leaves no room for another lookup while these are in flight (or at all). */
  | { kind: "cap" }
  | { kind: "lost" };

/**
 * Takes the batch's next pending page (in input order) and marks it in flight, reserving its cost
 * against the cap — in one statement, only while this instance holds the running batch and the
 * credits spent plus those reserved by the lookups in flight plus this one stay within the cap.
 * Lookups of one batch start side by side: the page is locked SKIP LOCKED, so two starts never
 * take the same page, and the cap is re-checked on the batch row's newest version. The lease is
 * renewed by the same statement.
 */
export const beginAttempt = async (
  db: Queryable,
  input: { batchId: string; owner: string; leaseMs: number; attemptId: string; keyId: string; costCredits: number },
): Promise<AttemptStart> => {
  const started = await db.query<OpenItem>(
    `WITH next AS (
       SELECT position, page FROM batch_items WHERE batch_id = $1 AND state = 'pending'
       ORDER BY position, page LIMIT 1 FOR UPDATE SKIP LOCKED),
     b AS (
       UPDATE batches SET lease_expires_at = now() + ${leaseInterval}, credits_reserved = credits_reserved + $6
       WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND credits_spent + credits_reserved + $6 <= max_credits
         AND EXISTS (SELECT 1 FROM next)
       RETURNING id)
     UPDATE batch_items i SET state = 'in_flight', attempt_id = $4::uuid, attempt_started_at = now(), key_id = $5, reserved_credits = $6
     FROM next
     WHERE i.batch_id = $1 AND i.batch_id IN (SELECT id FROM b) AND i.position = next.position AND i.page = next.page
     RETURNING i.position, i.page, i.query, i.state, i.attempt_id::text AS attempt_id, i.attempt_started_at, i.key_id`,
    [input.batchId, input.owner, input.leaseMs, input.attemptId, input.keyId, input.costCredits],
  );
  const item = started[0];
  if (item) return { kind: "started", item };
  const rows = await db.query<{ held: boolean; over_cap: boolean; open: boolean; pending: boolean }>(
    `SELECT lease_owner = $2 AND status = 'running' AS held, credits_spent + credits_reserved + $3 > max_credits AS over_cap,
       EXISTS (SELECT 1 FROM batch_items WHERE batch_id = $1 AND state <> 'done') AS open,
       EXISTS (SELECT 1 FROM batch_items WHERE batch_id = $1 AND state = 'pending') AS pending
     FROM batches WHERE id = $1`,
    [input.batchId, input.owner, input.costCredits],
  );
  const row = rows[0];
  if (!row?.held) return { kind: "lost" };
  if (!row.open) return { kind: "finished" };
  if (!row.pending) return { kind: "busy" };
  return row.over_cap ? { kind: "cap" } : { kind: "busy" };
};

/** Puts an attempt that was not charged (429, 402, 401, a crash) back in line and frees its reservation. */
export const abandonAttempt = async (db: Queryable, batchId: string, item: OpenItem, attemptId: string): Promise<void> => {
  await db.query(
    `WITH item AS (
       UPDATE batch_items SET state = 'pending', attempt_id = NULL, attempt_started_at = NULL
       WHERE batch_id = $1 AND position = $2 AND page = $3 AND state = 'in_flight' AND attempt_id = $4::uuid
       RETURNING reserved_credits AS reserved)
     UPDATE batches SET credits_reserved = credits_reserved - (SELECT reserved FROM item)
     WHERE id = $1 AND EXISTS (SELECT 1 FROM item)`,
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
 * Records an attempt's answer, its charge and what follows, in one statement (so atomically):
 * the page done, the next page or the input's outcome, the batch's credits and counters. Only
 * the attempt that is still in flight is recorded, so two writers (a slow runner and its
 * successor) cannot both count it. Returns false when it was recorded already. (PostgreSQL runs
 * every data-modifying WITH part exactly once, read or not.)
 */
export const recordAttempt = async (db: Queryable, batchId: string, item: OpenItem, attemptId: string, result: AttemptResult): Promise<boolean> => {
  const rows = await db.query<{ recorded: number | string }>(
    `WITH item AS (
       UPDATE batch_items SET state = 'done', http_status = $5, credits_charged = $6, request_id = $7::uuid, message = $8,
         summary = $9, data = $10, finished_at = now()
       WHERE batch_id = $1 AND position = $2 AND page = $3 AND state = 'in_flight' AND attempt_id = $4::uuid
       RETURNING position, reserved_credits AS reserved),
     next_page AS (
       INSERT INTO batch_items (batch_id, position, page, query)
       SELECT $1, $2, $3 + 1, $11::text FROM item WHERE $11::text IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING page),
     input AS (
       UPDATE batch_inputs SET outcome = $12::text
       WHERE batch_id = $1 AND position = $2 AND outcome IS NULL AND $12::text IS NOT NULL AND EXISTS (SELECT 1 FROM item)
       RETURNING outcome),
     batch AS (
       UPDATE batches SET credits_spent = credits_spent + $6, updated_at = now(),
         credits_reserved = credits_reserved - (SELECT reserved FROM item),
         done = done + (SELECT count(*) FROM input),
         succeeded = succeeded + (SELECT count(*) FROM input WHERE outcome = 'succeeded'),
         not_found = not_found + (SELECT count(*) FROM input WHERE outcome = 'not_found'),
         failed = failed + (SELECT count(*) FROM input WHERE outcome = 'failed')
       WHERE id = $1 AND EXISTS (SELECT 1 FROM item)
       RETURNING id)
     SELECT count(*) AS recorded FROM item`,
    [
      batchId,
      item.position,
      item.page,
      attemptId,
      result.httpStatus,
      result.creditsCharged,
      result.requestId,
      result.message,
      result.summary,
      result.data,
      result.nextQuery,
      result.outcome,
    ],
  );
  return Number(rows[0]?.recorded ?? 0) > 0;
};

/** Done when nothing is left to look up; only while this instance runs it. */
export const finishBatch = async (db: Queryable, batchId: string, owner: string): Promise<boolean> =>
  (
    await db.query(
      `UPDATE batches SET status = 'done', finished_at = now(), ended_count = ended_count + 1, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
       WHERE id = $1 AND lease_owner = $2 AND status = 'running'
         AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = $1 AND state <> 'done')
       RETURNING id`,
      [batchId, owner],
    )
  ).length > 0;

export const stopBatch = async (db: Queryable, batchId: string, owner: string, reason: StopReason): Promise<void> => {
  await db.query(
    `UPDATE batches SET status = 'stopped', stop_reason = $3, ended_count = ended_count + 1, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
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
