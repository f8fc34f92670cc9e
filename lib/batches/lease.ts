import type { Queryable } from "@/lib/db/client";
import { BATCH_COLUMNS, CREATING_OWNER, normaliseBatch, type BatchRow, type StopReason } from "./repository";

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
 * owners who already have their share of batches running (a batch of a key of no user: that key).
 */
export const claimBatch = async (db: Queryable, owner: string, leaseMs: number, perUser: number): Promise<BatchRow | null> => {
  const rows = await db.query<BatchRow>(
    `UPDATE batches SET status = 'running', lease_owner = $1, lease_expires_at = now() + ${leaseInterval},
       started_at = COALESCE(started_at, now()), updated_at = now()
     WHERE id = (
       SELECT b.id FROM batches b
       WHERE b.status IN ('queued', 'running') AND (b.lease_expires_at IS NULL OR b.lease_expires_at < now())
         AND b.lease_owner IS DISTINCT FROM '${CREATING_OWNER}'
         AND (SELECT count(*) FROM batches o
              WHERE (o.user_id = b.user_id OR (b.user_id IS NULL AND o.user_id IS NULL AND o.key_id = b.key_id))
                AND o.id <> b.id AND o.status = 'running' AND o.lease_expires_at >= now()) < $2
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

/**
 * The embedded database admits one process: at its start every lease is a dead process's, and a
 * batch still being created was never answered (its inputs half-written): it goes.
 */
export const releaseAllLeases = async (db: Queryable): Promise<void> => {
  await db.query("DELETE FROM batches WHERE lease_owner = $1", [CREATING_OWNER]);
  await db.query("UPDATE batches SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner IS NOT NULL");
};

/** Batches whose creating instance died before their inputs were all written (their lease lapsed). */
export const dropAbandonedCreations = async (db: Queryable): Promise<void> => {
  await db.query("DELETE FROM batches WHERE lease_owner = $1 AND lease_expires_at < now()", [CREATING_OWNER]);
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

/** A page taken for a lookup: in flight under its own attempt id. */
export type StartedItem = OpenItem & { attempt_id: string };

export type AttemptStart =
  | { kind: "started"; items: StartedItem[] }
  /** Nothing left to look up. */
  | { kind: "finished" }
  /** Pages left, but every one is in flight (the next page of an input waits for its previous). */
  | { kind: "busy" }
  /** The cap leaves no room for another lookup while these are in flight (or at all). */
  | { kind: "cap" }
  | { kind: "lost" };

/**
 * Takes up to `count` of the batch's next pending pages (in input order) and marks them in
 * flight, each under a new attempt id, reserving their cost against the cap — in one statement,
 * only while this instance holds the running batch, and only as many as the credits spent plus
 * those reserved by the lookups in flight leave room for. Pages are locked SKIP LOCKED, so two
 * starts never take the same page, and the cap is checked again on the batch row's newest
 * version. The lease is renewed by the same statement. One statement for several pages: on the
 * embedded database every statement is a commit, and a page each was most of a batch's time.
 */
export const beginAttempts = async (
  db: Queryable,
  input: { batchId: string; owner: string; leaseMs: number; keyId: string; costCredits: number; count: number },
): Promise<AttemptStart> => {
  const started = await db.query<StartedItem>(
    `WITH room AS (
       SELECT CASE WHEN $5::integer = 0 THEN $6::integer
                   ELSE LEAST($6::integer, GREATEST(0, (max_credits - credits_spent - credits_reserved) / $5::integer)) END AS pages
       FROM batches WHERE id = $1 AND lease_owner = $2 AND status = 'running'),
     next AS (
       SELECT position, page FROM batch_items WHERE batch_id = $1 AND state = 'pending'
       ORDER BY position, page LIMIT (SELECT COALESCE(max(pages), 0) FROM room) FOR UPDATE SKIP LOCKED),
     b AS (
       UPDATE batches SET lease_expires_at = now() + ${leaseInterval}, credits_reserved = credits_reserved + $5 * (SELECT count(*) FROM next)
       WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND EXISTS (SELECT 1 FROM next)
         AND credits_spent + credits_reserved + $5 * (SELECT count(*) FROM next) <= max_credits
       RETURNING id)
     UPDATE batch_items i SET state = 'in_flight', attempt_id = gen_random_uuid(), attempt_started_at = now(), key_id = $4, reserved_credits = $5
     FROM next
     WHERE i.batch_id = $1 AND i.batch_id IN (SELECT id FROM b) AND i.position = next.position AND i.page = next.page
     RETURNING i.position, i.page, i.query, i.state, i.attempt_id::text AS attempt_id, i.attempt_started_at, i.key_id`,
    [input.batchId, input.owner, input.leaseMs, input.keyId, input.costCredits, Math.max(1, Math.floor(input.count))],
  );
  if (started.length > 0) return { kind: "started", items: started.sort((x, y) => x.position - y.position || x.page - y.page) };
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

export type Attempt = { item: OpenItem; attemptId: string; result: AttemptResult };

/**
 * Records attempts' answers, their charges and what follows, in one statement (so atomically):
 * each page done, its next page or its input's outcome, and the batch's credits and counters
 * once for all of them. Only an attempt still in flight is recorded, so two writers (a slow
 * runner and its successor) cannot both count it. Returns, per attempt, whether it was recorded
 * now (false: it was recorded already). (PostgreSQL runs every data-modifying WITH part exactly
 * once, read or not.)
 */
export const recordAttempts = async (db: Queryable, batchId: string, attempts: readonly Attempt[]): Promise<boolean[]> => {
  if (attempts.length === 0) return [];
  const payload = attempts.map(({ item, attemptId, result }) => ({
    position: item.position,
    page: item.page,
    attempt_id: attemptId,
    http_status: result.httpStatus,
    credits_charged: result.creditsCharged,
    request_id: result.requestId,
    message: result.message,
    summary: result.summary,
    data: result.data,
    next_query: result.nextQuery,
    outcome: result.outcome,
  }));
  const rows = await db.query<{ position: number; page: number }>(
    `WITH r AS (
       SELECT * FROM json_to_recordset($2::json) AS r(position integer, page integer, attempt_id uuid, http_status integer,
         credits_charged integer, request_id uuid, message text, summary text, data text, next_query text, outcome text)),
     item AS (
       UPDATE batch_items i SET state = 'done', http_status = r.http_status, credits_charged = r.credits_charged, request_id = r.request_id,
         message = r.message, summary = r.summary, data = r.data, finished_at = now()
       FROM r
       WHERE i.batch_id = $1 AND i.position = r.position AND i.page = r.page AND i.state = 'in_flight' AND i.attempt_id = r.attempt_id
       RETURNING i.position, i.page, i.reserved_credits AS reserved, r.credits_charged AS charged, r.next_query, r.outcome),
     next_page AS (
       INSERT INTO batch_items (batch_id, position, page, query)
       SELECT $1, item.position, item.page + 1, item.next_query FROM item WHERE item.next_query IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING page),
     input AS (
       UPDATE batch_inputs bi SET outcome = item.outcome
       FROM item
       WHERE bi.batch_id = $1 AND bi.position = item.position AND bi.outcome IS NULL AND item.outcome IS NOT NULL
       RETURNING bi.outcome),
     batch AS (
       UPDATE batches SET credits_spent = credits_spent + (SELECT COALESCE(sum(charged), 0) FROM item), updated_at = now(),
         credits_reserved = credits_reserved - (SELECT COALESCE(sum(reserved), 0) FROM item),
         done = done + (SELECT count(*) FROM input),
         succeeded = succeeded + (SELECT count(*) FROM input WHERE outcome = 'succeeded'),
         not_found = not_found + (SELECT count(*) FROM input WHERE outcome = 'not_found'),
         failed = failed + (SELECT count(*) FROM input WHERE outcome = 'failed')
       WHERE id = $1 AND EXISTS (SELECT 1 FROM item)
       RETURNING id)
     SELECT position, page FROM item`,
    [batchId, JSON.stringify(payload)],
  );
  const recorded = new Set(rows.map((row) => `${row.position}:${row.page}`));
  return attempts.map(({ item }) => recorded.has(`${item.position}:${item.page}`));
};

/** One attempt's answer (recordAttempts for one). */
export const recordAttempt = async (db: Queryable, batchId: string, item: OpenItem, attemptId: string, result: AttemptResult): Promise<boolean> =>
  (await recordAttempts(db, batchId, [{ item, attemptId, result }]))[0] ?? false;

/**
 * Gathers the attempts that end in the same event-loop turn into one recordAttempts (the group
 * commit lib/credits/settle.ts does for charges); attempts ending while it is written go in the
 * next. Each caller gets its own attempt's answer, or the statement's error.
 */
export const createAttemptRecorder = (db: Queryable, batchId: string) => {
  let queue: { attempt: Attempt; resolve: (recorded: boolean) => void; reject: (error: unknown) => void }[] = [];
  let writing: Promise<void> | null = null;
  const write = async () => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const recorded = await recordAttempts(db, batchId, batch.map((entry) => entry.attempt));
        batch.forEach((entry, index) => entry.resolve(recorded[index] ?? false));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    writing = null;
  };
  return (attempt: Attempt): Promise<boolean> =>
    new Promise((resolve, reject) => {
      queue.push({ attempt, resolve, reject });
      writing ??= new Promise<void>((started) => setImmediate(started)).then(write);
    });
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
