import type { Db, Queryable } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { roleMay, WORKSPACE_ROLES } from "@/lib/workspaces/roles";
import { claimBatchRoom, quotaHolderOf, type BatchQuota } from "./quota";

/**
 * The batches tables (migration 0007_batches) for the console side: creating a batch, reading
 * it, and the analyst's state changes. The runner's own statements live in ./lease.ts.
 */
export type BatchStatus = "queued" | "running" | "paused" | "done" | "stopped" | "canceled";
export type StopReason = "cap" | "credits" | "key";

export type BatchRow = {
  id: string;
  /** The user it belongs to; null: it belongs to the API key that made it (key_id), a key of no user. */
  user_id: string | null;
  operation: string;
  max_pages: number;
  status: BatchStatus;
  stop_reason: StopReason | null;
  total: number;
  done: number;
  succeeded: number;
  not_found: number;
  failed: number;
  max_credits: number;
  max_cost_credits: number;
  credits_spent: number;
  retry_of: string | null;
  lease_owner: string | null;
  /** The API key that pays for and paces a batch created under /v1; null: the owner's console key. */
  key_id: string | null;
  /** The workspace it runs in (docs/teams.md): its key's, or for a console batch its owner's active one. */
  workspace_id: string | null;
  webhook_url: string | null;
  /** Oldest cached answer accepted (seconds); null: the operator's TTLs. */
  max_age_s: number | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
};

export const BATCH_COLUMNS = `id, user_id, operation, max_pages, status, stop_reason, total, done, succeeded, not_found, failed,
  max_credits::bigint AS max_credits, max_cost_credits::bigint AS max_cost_credits, credits_spent::bigint AS credits_spent,
  retry_of, lease_owner, key_id, workspace_id, webhook_url, max_age_s, created_at, started_at, finished_at`;

/** Numbers as numbers on both drivers (PGlite returns bigint columns as bigint). */
export const normaliseBatch = (row: BatchRow): BatchRow => ({
  ...row,
  max_credits: Number(row.max_credits),
  max_cost_credits: Number(row.max_cost_credits),
  credits_spent: Number(row.credits_spent),
  created_at: new Date(row.created_at),
  started_at: row.started_at === null ? null : new Date(row.started_at),
  finished_at: row.finished_at === null ? null : new Date(row.finished_at),
});

/** A batch's progress and spending, as the console and the batch.finished webhook show them. */
export type BatchCounts = {
  total: number;
  done: number;
  succeeded: number;
  notFound: number;
  failed: number;
  creditsSpent: number;
  maxCredits: number;
};

type CountColumns = Pick<BatchRow, "total" | "done" | "succeeded" | "not_found" | "failed"> & {
  credits_spent: number | string;
  max_credits: number | string;
};

/** A batch row's counts (bigint columns may come back as text). */
export const batchCounts = (row: CountColumns): BatchCounts => ({
  total: row.total,
  done: row.done,
  succeeded: row.succeeded,
  notFound: row.not_found,
  failed: row.failed,
  creditsSpent: Number(row.credits_spent),
  maxCredits: Number(row.max_credits),
});

export type NewBatch = {
  /** Chosen by the caller when something must be bound to it before the insert (a sealed token). */
  id?: string;
  /** null: the batch is the paying key's own (a key that belongs to no user). */
  userId: string | null;
  operation: string;
  maxPages: number;
  maxCredits: number;
  maxCostCredits: number;
  inputs: { input: string; query: string }[];
  retryOf: string | null;
  /** A /v1 batch: the creating key and its token, sealed (lib/batches/payer.ts). */
  payer: { keyId: string; tokenSealed: string } | null;
  webhookUrl: string | null;
  maxAgeS: number | null;
  /** The owner's open-work quota, claimed in the same transaction (lib/batches/quota.ts). */
  quota: BatchQuota;
};

/**
 * Rows per INSERT of inputs and items: a batch of 10,000 inputs is written in ten short
 * statements, each its own commit, so requests are served between them.
 */
const INSERT_CHUNK = 1000;

/**
 * The lease a batch holds while its inputs are written: no runner claims it (claimBatch skips it),
 * and one whose writer died (a crash between the statements) is deleted, never run half-written
 * (lib/batches/lease.ts: releaseAllLeases at an embedded start, dropAbandonedCreations).
 */
export const CREATING_OWNER = "(creating)";
export const CREATING_LEASE = "interval '10 minutes'";

/**
 * The batch, within the user's quota (claimed in a short transaction with the batch row, which
 * carries the input count the quota counts), then one input and one pending first page per
 * input, written outside that transaction: on the embedded database a transaction holds the one
 * session, and 20,000 rows in one would stop every request for a few hundred milliseconds. The
 * batch is runnable once all are written; if writing fails it is deleted.
 */
export const insertBatch = async (db: Db, batch: NewBatch): Promise<BatchRow> => {
  const id = batch.id ?? crypto.randomUUID();
  const row = await db.transaction(async (tx) => {
    const holder = quotaHolderOf({ userId: batch.userId, keyId: batch.payer?.keyId ?? null });
    await claimBatchRoom(tx, holder, batch.inputs.length, batch.quota);
    const rows = await tx.query<BatchRow>(
      `INSERT INTO batches (id, user_id, operation, max_pages, total, max_credits, max_cost_credits, retry_of,
         key_id, token_sealed, webhook_url, max_age_s, lease_owner, lease_expires_at, workspace_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now() + ${CREATING_LEASE},
         -- The paying key's workspace; a console batch runs in its owner's active workspace.
         COALESCE((SELECT k.workspace_id FROM api_keys k WHERE k.id = $9::text),
           (SELECT m.workspace_id FROM users u JOIN workspace_members m ON m.workspace_id = u.active_workspace_id AND m.user_id = u.id
            WHERE u.id = $2::text),
           (SELECT w.id FROM workspaces w WHERE w.personal_user_id = $2::text)))
       RETURNING ${BATCH_COLUMNS}`,
      [
        id,
        batch.userId,
        batch.operation,
        batch.maxPages,
        batch.inputs.length,
        batch.maxCredits,
        batch.maxCostCredits,
        batch.retryOf,
        batch.payer?.keyId ?? null,
        batch.payer?.tokenSealed ?? null,
        batch.webhookUrl,
        batch.maxAgeS,
        CREATING_OWNER,
      ],
    );
    const inserted = rows[0];
    if (!inserted) throw new Error("batch insert returned no row");
    return inserted;
  });
  try {
    for (let start = 0; start < batch.inputs.length; start += INSERT_CHUNK) {
      const chunk = batch.inputs.slice(start, start + INSERT_CHUNK);
      await db.query(
        `WITH t AS (
           SELECT $2 + t.position::integer AS position, t.input, t.query
           FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(input, query, position)),
         written AS (INSERT INTO batch_inputs (batch_id, position, input) SELECT $1, t.position, t.input FROM t)
         INSERT INTO batch_items (batch_id, position, page, query) SELECT $1, t.position, 1, t.query FROM t`,
        [id, start, chunk.map((entry) => entry.input), chunk.map((entry) => entry.query)],
      );
    }
    await db.query("UPDATE batches SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2", [id, CREATING_OWNER]);
  } catch (error) {
    await db.query("DELETE FROM batches WHERE id = $1", [id]).catch(() => undefined);
    throw error;
  }
  return normaliseBatch({ ...row, lease_owner: null });
};

/**
 * Who may see a batch: its owner, and administrators. An API key (keyId set) sees only the
 * batches it created; `id` is the key's owner, null for a key that belongs to no user.
 */
export type Viewer = { id: string | null; role: "admin" | "analyst"; keyId?: string };

/**
 * A console viewer's batches are those of their active workspace (docs/teams.md): their own, and
 * every one of the workspace when their role there manages batches (owners and admins: a removed
 * member's handed-over batch among them). Another workspace's batch is not found, like another
 * user's.
 */
const inActiveWorkspace = (userParam: string) => `workspace_id IS NOT DISTINCT FROM COALESCE(
  (SELECT m.workspace_id FROM users u JOIN workspace_members m ON m.workspace_id = u.active_workspace_id AND m.user_id = u.id
   WHERE u.id = ${userParam}::text),
  (SELECT w.id FROM workspaces w WHERE w.personal_user_id = ${userParam}::text))`;

/** The roles that manage every batch of their workspace (the role table decides). */
const BATCH_MANAGERS = WORKSPACE_ROLES.filter((role) => roleMay(role, "batches.manage"));

const visibleInActiveWorkspace = (userParam: string, managersParam: string) => `${inActiveWorkspace(userParam)} AND (user_id = ${userParam}
  OR EXISTS (SELECT 1 FROM workspace_members mm
             WHERE mm.workspace_id = batches.workspace_id AND mm.user_id = ${userParam}::text AND mm.role = ANY(${managersParam}::text[])))`;

export const findBatch = async (db: Queryable, viewer: Viewer, id: string): Promise<BatchRow> => {
  const rows = await db.query<BatchRow>(
    `SELECT ${BATCH_COLUMNS} FROM batches
     WHERE id = $1 AND CASE WHEN $4::text IS NULL THEN $2::boolean OR (${visibleInActiveWorkspace("$3", "$5")}) ELSE key_id = $4 END`,
    [id, viewer.role === "admin" && viewer.keyId === undefined, viewer.id, viewer.keyId ?? null, BATCH_MANAGERS],
  );
  const row = rows[0];
  // Another analyst's batch does not exist for this viewer: same answer as a wrong id.
  if (!row) throw new DomainError("not_found", "No such batch.");
  return normaliseBatch(row);
};

const LIST_LIMIT = 200;

/** A key's batches, newest first (GET /v1/batches). */
export const listKeyBatches = async (db: Queryable, keyId: string, limit: number): Promise<BatchRow[]> =>
  (
    await db.query<BatchRow>(`SELECT ${BATCH_COLUMNS} FROM batches WHERE key_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [
      keyId,
      Math.min(limit, LIST_LIMIT),
    ])
  ).map(normaliseBatch);

/** The sealed token of a /v1 batch's key (the runner looks its pages up with it). */
export const batchTokenSealed = async (db: Queryable, batchId: string): Promise<string | null> =>
  (await db.query<{ token_sealed: string | null }>("SELECT token_sealed FROM batches WHERE id = $1", [batchId]))[0]?.token_sealed ?? null;

export const listBatches = async (db: Queryable, viewer: Viewer, scope: "mine" | "all"): Promise<BatchRow[]> => {
  const everyone = viewer.role === "admin" && scope === "all";
  const rows = await db.query<BatchRow>(
    `SELECT ${BATCH_COLUMNS} FROM batches WHERE ($1::boolean OR (${visibleInActiveWorkspace("$2", "$3")}))
     ORDER BY created_at DESC, id DESC LIMIT ${LIST_LIMIT}`,
    [everyone, viewer.id, BATCH_MANAGERS],
  );
  return rows.map(normaliseBatch);
};

export type BatchAction = "pause" | "resume" | "cancel";

const TRANSITIONS: Record<BatchAction, { from: BatchStatus[]; sql: string }> = {
  // A running batch finishes the lookup in flight; its runner sees the new status before the next.
  pause: { from: ["queued", "running"], sql: "status = 'paused'" },
  // Back in the queue: an instance takes it (within the per-user and per-instance limits).
  resume: { from: ["paused", "stopped"], sql: "status = 'queued', stop_reason = NULL, finished_at = NULL" },
  cancel: { from: ["queued", "running", "paused", "stopped"], sql: "status = 'canceled', finished_at = now(), ended_count = ended_count + 1" },
};

export const changeBatch = async (
  db: Db,
  viewer: Viewer,
  id: string,
  action: BatchAction,
  options: { maxCredits?: number; quota: BatchQuota },
): Promise<BatchRow> => {
  const current = await findBatch(db, viewer, id);
  const transition = TRANSITIONS[action];
  // Lookups still in flight (a batch paused a moment ago) may yet be charged what they reserved.
  if (options.maxCredits !== undefined && options.maxCredits < current.credits_spent) {
    throw new DomainError("cap_below_one_lookup", `The cap cannot be below the ${current.credits_spent} credits already spent.`);
  }
  const rows = await db.transaction(async (tx) => {
    // Back in the queue counts as open again (its inputs never stopped counting).
    if (action === "resume") await claimBatchRoom(tx, quotaHolderOf({ userId: current.user_id, keyId: current.key_id }), 0, options.quota);
    return tx.query<BatchRow>(
      `UPDATE batches SET ${transition.sql}, updated_at = now(),
         max_credits = CASE WHEN $3::bigint IS NULL THEN max_credits ELSE LEAST($3::bigint, max_cost_credits) END
       WHERE id = $1 AND status = ANY($2::text[]) AND credits_spent + credits_reserved <= COALESCE($3::bigint, max_credits)
       RETURNING ${BATCH_COLUMNS}`,
      [id, transition.from, options.maxCredits ?? null],
    );
  });
  const row = rows[0];
  if (!row) throw new DomainError("wrong_state", `A ${current.status} batch cannot be ${action === "cancel" ? "canceled" : `${action}d`}.`);
  return normaliseBatch(row);
};

/** Inputs that ended failed (not those not found): the lines of a retry batch. */
export const failedInputs = async (db: Queryable, batchId: string): Promise<string[]> =>
  (
    await db.query<{ input: string }>(
      "SELECT input FROM batch_inputs WHERE batch_id = $1 AND outcome = 'failed' ORDER BY position",
      [batchId],
    )
  ).map((row) => row.input);

export type ItemRow = {
  position: number;
  page: number;
  input: string;
  query: string;
  state: "pending" | "in_flight" | "done";
  http_status: number | null;
  credits_charged: number;
  message: string | null;
  summary: string | null;
  data: string | null;
};

/** Lookups of a batch in input order, after (position, page), with their input line. */
export const itemsAfter = (
  db: Queryable,
  batchId: string,
  after: { position: number; page: number },
  limit: number,
  withData: boolean,
): Promise<ItemRow[]> =>
  db.query<ItemRow>(
    `SELECT i.position, i.page, n.input, i.query, i.state, i.http_status, i.credits_charged, i.message, i.summary,
            ${withData ? "i.data" : "NULL::text AS data"}
     FROM batch_items i JOIN batch_inputs n ON n.batch_id = i.batch_id AND n.position = i.position
     WHERE i.batch_id = $1 AND (i.position, i.page) > ($2, $3)
     ORDER BY i.position, i.page LIMIT $4`,
    [batchId, after.position, after.page, limit],
  );
