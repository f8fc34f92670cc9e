import crypto from "node:crypto";
import type { Queryable } from "@/lib/db/client";
import { compileAccess, type KeyAccess } from "./access";
import type { KeyRefill } from "./refill";
import { hashToken, issueToken, tokenHint } from "./tokens";

/** API key records: issuance, listing, revocation, top-ups, rolls. No HTTP in here. */
export type KeyStatus = "active" | "revoked";

export type ApiKey = {
  id: string;
  name: string;
  ownerId: string | null;
  tokenHint: string;
  creditsRemaining: number;
  creditsGranted: number;
  qpsLimit: number;
  status: KeyStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  /** Operation ids the key may call; null: all, those added later included. */
  operations: string[] | null;
  /** Addresses and CIDR ranges the key may be used from; null: any. */
  allowedAddresses: string[] | null;
  refill: KeyRefill | null;
  /** The user whose credit allowance pays each refill; null: granted (an administrator or the CLI set it). */
  refillPayerId: string | null;
  /** Set when a period's refill could not be paid: when, and the credits it would have added. */
  refillStopped: RefillStop | null;
  /** null: no refill, or a stopped one. */
  nextRefillAt: Date | null;
  /** The workspace the key belongs to; null: an operator's key from the key CLI. */
  workspaceId: string | null;
  /** The team workspace whose pool the key draws from (creditsRemaining is then the pool's); null: its own balance. */
  poolId: string | null;
  /** The key's own monthly or total cap (its daily cap is the budget's, lib/alerts/settings.ts); null: none. */
  spendCap: { credits: number; period: "month" | "total" } | null;
};

export type RefillStop = { at: Date; credits: number };

/**
 * What the request path needs to authenticate a token, cached briefly per process: only ever
 * loaded for a usable key (the usable_keys view decides). expiresAt and previousTokenExpiresAt
 * are when the view's verdict ends on its own — the cache must not outlive them.
 */
export type KeyCredentials = {
  id: string;
  ownerId: string | null;
  tokenHash: Buffer;
  /** The token before the last roll, while its grace period lasts; null otherwise. */
  previousTokenHash: Buffer | null;
  previousTokenExpiresAt: Date | null;
  qpsLimit: number;
  expiresAt: Date | null;
  access: KeyAccess;
  /** The requests-per-second limit the key's workspace shares among all its keys; null: none. */
  workspaceLimit: { workspaceId: string; qpsLimit: number } | null;
};

type KeyRow = {
  id: string;
  name: string;
  owner_id: string | null;
  token_prefix: string;
  credits_remaining: number | string;
  credits_granted: number | string;
  qps_limit: number;
  status: KeyStatus;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
  expires_at: Date | string | null;
  operations: string[] | null;
  allowed_addresses: string[] | null;
  refill_credits: number | string | null;
  refill_interval: KeyRefill["interval"] | null;
  refill_day_of_month: number | null;
  refill_mode: KeyRefill["mode"] | null;
  refill_payer_id: string | null;
  refill_stopped_at: Date | string | null;
  refill_stopped_credits: number | string | null;
  next_refill_at: Date | string | null;
  workspace_id: string | null;
  pool_id: string | null;
  spend_cap_credits: number | string | null;
  spend_cap_period: "month" | "total" | null;
};

const toDate = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

const toApiKey = (row: KeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  ownerId: row.owner_id,
  tokenHint: row.token_prefix,
  creditsRemaining: Number(row.credits_remaining),
  creditsGranted: Number(row.credits_granted),
  qpsLimit: row.qps_limit,
  status: row.status,
  createdAt: new Date(row.created_at),
  lastUsedAt: toDate(row.last_used_at),
  revokedAt: toDate(row.revoked_at),
  expiresAt: toDate(row.expires_at),
  operations: row.operations,
  allowedAddresses: row.allowed_addresses,
  refill:
    row.refill_credits === null || row.refill_interval === null || row.refill_mode === null
      ? null
      : { credits: Number(row.refill_credits), interval: row.refill_interval, dayOfMonth: row.refill_day_of_month, mode: row.refill_mode },
  refillPayerId: row.refill_payer_id,
  refillStopped:
    row.refill_stopped_at === null ? null : { at: new Date(row.refill_stopped_at), credits: Number(row.refill_stopped_credits ?? 0) },
  nextRefillAt: toDate(row.next_refill_at),
  workspaceId: row.workspace_id,
  poolId: row.pool_id,
  spendCap:
    row.spend_cap_credits === null || row.spend_cap_period === null
      ? null
      : { credits: Number(row.spend_cap_credits), period: row.spend_cap_period },
});

// A pooled key's credits are its pool's (the key_credits view's rule, written out for RETURNING).
const KEY_COLUMNS =
  "id, name, owner_id, token_prefix, " +
  "COALESCE((SELECT w.pool_credits FROM workspaces w WHERE w.id = pool_id), credits_remaining) AS credits_remaining, " +
  "COALESCE((SELECT w.pool_granted FROM workspaces w WHERE w.id = pool_id), credits_granted) AS credits_granted, qps_limit, status, created_at, last_used_at, revoked_at, expires_at, " +
  "operations, allowed_addresses, refill_credits, refill_interval, refill_day_of_month, refill_mode, " +
  "refill_payer_id, refill_stopped_at, refill_stopped_credits, workspace_id, pool_id, spend_cap_credits, spend_cap_period, " +
  "CASE WHEN refill_credits IS NOT NULL AND refill_stopped_at IS NULL THEN next_refill_at(refill_interval, refill_day_of_month, now()) END AS next_refill_at";

export const newKeyId = (): string => `key_${crypto.randomBytes(9).toString("base64url")}`;

export type CreateKeyInput = {
  name: string;
  ownerId: string | null;
  credits: number;
  qpsLimit: number;
  expiresAt: Date | null;
  /** Whose allowance pays the refill (lib/keys/refill.sql); null or omitted: granted. */
  refillPayerId?: string | null;
  /**
   * The workspace the key belongs to (docs/teams.md); omitted: its owner's personal workspace (none
   * for an ownerless key). A key of a team workspace draws from the workspace's pool.
   */
  workspaceId?: string;
  /** A cap of the key's own: credits per day, per calendar month (UTC), or in all. */
  cap?: KeyCap | null;
  /** A key of no one that spends for this user (a removed member's batches): their usage. */
  onBehalfOf?: string | null;
} & Partial<KeyPolicy>;

export type KeyCap = { credits: number; period: "day" | "month" | "total" };

/** What a key may call, from where, and how it is refilled: set at issuance and on edit. */
export type KeyPolicy = { operations: string[] | null; allowedAddresses: string[] | null; refill: KeyRefill | null };

/** Issues a key; the token is returned here once and never stored. */
export const createKey = async (
  db: Queryable,
  secret: string,
  input: CreateKeyInput,
): Promise<{ key: ApiKey; token: string }> => {
  const id = newKeyId();
  const token = await issueToken(id, secret);
  const rows = await db.query<KeyRow>(
    `WITH ws AS (
       SELECT w.id, w.personal_user_id FROM workspaces w
       WHERE w.id = COALESCE($16::text, (SELECT p.id FROM workspaces p WHERE p.personal_user_id = $3::text))
     )
     INSERT INTO api_keys (id, name, owner_id, token_hash, token_prefix, credits_remaining, credits_granted, qps_limit, expires_at,
       operations, allowed_addresses, refill_credits, refill_interval, refill_day_of_month, refill_mode, refilled_period, refill_payer_id,
       workspace_id, pool_id, daily_credit_cap, spend_cap_credits, spend_cap_period, on_behalf_of)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9, $10, $11, $12, $13, $14,
       CASE WHEN $11::bigint IS NOT NULL THEN refill_period_start($12, $13, now()) END,
       CASE WHEN $11::bigint IS NOT NULL THEN $15::text END,
       (SELECT ws.id FROM ws), (SELECT ws.id FROM ws WHERE ws.personal_user_id IS NULL),
       CASE WHEN $18::text = 'day' THEN $17::bigint END,
       CASE WHEN $18::text IN ('month', 'total') THEN $17::bigint END,
       CASE WHEN $18::text IN ('month', 'total') THEN $18::text END, $19::text) RETURNING ${KEY_COLUMNS}`,
    [
      id,
      input.name,
      input.ownerId,
      hashToken(token),
      tokenHint(token),
      input.credits,
      input.qpsLimit,
      input.expiresAt,
      ...policyParams({ operations: input.operations ?? null, allowedAddresses: input.allowedAddresses ?? null, refill: input.refill ?? null }),
      input.refillPayerId ?? null,
      input.workspaceId ?? null,
      input.cap?.credits ?? null,
      input.cap?.period ?? null,
      input.onBehalfOf ?? null,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error("key insert returned no row");
  return { key: toApiKey(row), token };
};

const policyParams = (policy: KeyPolicy) => [
  policy.operations,
  policy.allowedAddresses,
  policy.refill?.credits ?? null,
  policy.refill?.interval ?? null,
  policy.refill?.dayOfMonth ?? null,
  policy.refill?.mode ?? null,
];

/**
 * Replaces a key's policy in one statement. The period a refill is set (or changed) in counts as
 * refilled: the first automatic refill runs at the next period start (a refill set again on the
 * same schedule keeps its count, so a period a stopped refill missed is refilled at the next sweep).
 * `refillSet`: the refill itself was set by this change, paid by `payerId` (null: granted) — it
 * re-arms a stopped refill; omitted, the refill's payer and stop stay as they are.
 */
export const setKeyPolicy = async (
  db: Queryable,
  id: string,
  policy: KeyPolicy,
  refillSet?: { payerId: string | null },
): Promise<ApiKey | null> => {
  const rows = await db.query<KeyRow>(
    `UPDATE api_keys SET operations = $2, allowed_addresses = $3, refill_credits = $4, refill_interval = $5,
       refill_day_of_month = $6, refill_mode = $7,
       refilled_period = CASE
         WHEN $4::bigint IS NULL THEN NULL
         WHEN refill_interval IS NOT DISTINCT FROM $5 AND refill_day_of_month IS NOT DISTINCT FROM $6::integer THEN refilled_period
         ELSE refill_period_start($5, $6, now()) END,
       refill_payer_id = CASE WHEN $4::bigint IS NULL THEN NULL WHEN $8::boolean THEN $9::text ELSE refill_payer_id END,
       refill_stopped_at = CASE WHEN $4::bigint IS NULL OR $8::boolean THEN NULL ELSE refill_stopped_at END,
       refill_stopped_credits = CASE WHEN $4::bigint IS NULL OR $8::boolean THEN NULL ELSE refill_stopped_credits END
     WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
    [id, ...policyParams(policy), refillSet !== undefined, refillSet?.payerId ?? null],
  );
  return rows[0] ? toApiKey(rows[0]) : null;
};

export const listKeys = async (db: Queryable, ownerId?: string): Promise<ApiKey[]> => {
  const rows =
    ownerId === undefined
      ? await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at DESC, id`)
      : await db.query<KeyRow>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE owner_id = $1 ORDER BY created_at DESC, id`,
          [ownerId],
        );
  return rows.map(toApiKey);
};

/** A workspace's keys, or only those one member made. */
export const listWorkspaceKeys = async (db: Queryable, workspaceId: string, ownerId?: string): Promise<ApiKey[]> =>
  (
    await db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE workspace_id = $1 AND ($2::text IS NULL OR owner_id = $2) ORDER BY created_at DESC, id`,
      [workspaceId, ownerId ?? null],
    )
  ).map(toApiKey);

/** Sets the key's own cap (a day's is the daily cap) or clears every cap of its own (null). */
export const setKeyCap = async (db: Queryable, id: string, cap: KeyCap | null): Promise<ApiKey | null> => {
  const rows = await db.query<KeyRow>(
    `UPDATE api_keys SET
       daily_credit_cap = CASE WHEN $3::text = 'day' THEN $2::bigint WHEN $3::text IS NULL THEN NULL ELSE daily_credit_cap END,
       spend_cap_credits = CASE WHEN $3::text IN ('month', 'total') THEN $2::bigint ELSE NULL END,
       spend_cap_period = CASE WHEN $3::text IN ('month', 'total') THEN $3::text ELSE NULL END
     WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
    [id, cap?.credits ?? null, cap?.period ?? null],
  );
  return rows[0] ? toApiKey(rows[0]) : null;
};

export const getKey = async (db: Queryable, id: string): Promise<ApiKey | null> => {
  const rows = await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  return rows[0] ? toApiKey(rows[0]) : null;
};

/**
 * The key, its row locked until the transaction ends (FOR NO KEY UPDATE, as the refill sweep
 * takes it): a change that also locks the key's payer takes the key first, as the sweep does.
 */
export const lockKey = async (db: Queryable, id: string): Promise<ApiKey | null> => {
  const rows = await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR NO KEY UPDATE`, [id]);
  return rows[0] ? toApiKey(rows[0]) : null;
};

/** Revokes an active key; returns null when there is no such key. Idempotent. */
export const revokeKey = async (db: Queryable, id: string): Promise<ApiKey | null> => {
  const rows = await db.query<KeyRow>(
    `UPDATE api_keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, now()),
       previous_token_hash = NULL, previous_token_expires_at = NULL
     WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
    [id],
  );
  return rows[0] ? toApiKey(rows[0]) : null;
};

/** Adds credits in one statement (never read-then-write). */
export const topUpKey = async (db: Queryable, id: string, credits: number): Promise<ApiKey | null> => {
  const rows = await db.query<KeyRow>(
    `UPDATE api_keys SET credits_remaining = credits_remaining + $2, credits_granted = credits_granted + $2
     WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
    [id, credits],
  );
  return rows[0] ? toApiKey(rows[0]) : null;
};

/**
 * Gives an active key a new token. The old token keeps working until `graceMs` from now
 * (0: it stops at once).
 */
export const rollKey = async (
  db: Queryable,
  secret: string,
  id: string,
  graceMs: number,
): Promise<{ key: ApiKey; token: string } | null> => {
  const token = await issueToken(id, secret);
  const rows = await db.query<KeyRow>(
    `UPDATE api_keys SET
       previous_token_hash = CASE WHEN $4::bigint > 0 THEN token_hash ELSE NULL END,
       previous_token_expires_at = CASE WHEN $4::bigint > 0 THEN now() + make_interval(secs => $4::bigint / 1000.0) ELSE NULL END,
       token_hash = $2, token_prefix = $3
     WHERE id = $1 AND status = 'active' RETURNING ${KEY_COLUMNS}`,
    [id, hashToken(token), tokenHint(token), graceMs],
  );
  return rows[0] ? { key: toApiKey(rows[0]), token } : null;
};

type CredentialsRow = {
  id: string;
  owner_id: string | null;
  token_hash: Uint8Array;
  previous_token_hash: Uint8Array | null;
  previous_token_expires_at: Date | string | null;
  qps_limit: number;
  expires_at: Date | string | null;
  operations: string[] | null;
  allowed_addresses: string[] | null;
  workspace_id: string | null;
  workspace_qps_limit: number | null;
};

/** The key's credentials if it is usable now (lib/keys/usable-keys.sql), else null. */
export const loadCredentials = async (db: Queryable, id: string): Promise<KeyCredentials | null> => {
  const rows = await db.query<CredentialsRow>(
    `SELECT u.id, u.owner_id, u.token_hash, u.previous_token_hash, u.previous_token_expires_at, u.qps_limit, u.expires_at,
       k.operations, k.allowed_addresses, k.workspace_id, w.qps_limit AS workspace_qps_limit
     FROM usable_keys u JOIN api_keys k ON k.id = u.id LEFT JOIN workspaces w ON w.id = k.workspace_id WHERE u.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    ownerId: row.owner_id,
    tokenHash: Buffer.from(row.token_hash),
    previousTokenHash: row.previous_token_hash ? Buffer.from(row.previous_token_hash) : null,
    previousTokenExpiresAt: toDate(row.previous_token_expires_at),
    qpsLimit: row.qps_limit,
    expiresAt: toDate(row.expires_at),
    access: compileAccess(row.operations, row.allowed_addresses),
    workspaceLimit:
      row.workspace_id === null || row.workspace_qps_limit === null ? null : { workspaceId: row.workspace_id, qpsLimit: row.workspace_qps_limit },
  };
};
