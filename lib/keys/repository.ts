import crypto from "node:crypto";
import type { Queryable } from "@/lib/db/client";
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
};

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
});

const KEY_COLUMNS =
  "id, name, owner_id, token_prefix, credits_remaining, credits_granted, qps_limit, status, created_at, last_used_at, revoked_at, expires_at";

export const newKeyId = (): string => `key_${crypto.randomBytes(9).toString("base64url")}`;

export type CreateKeyInput = {
  name: string;
  ownerId: string | null;
  credits: number;
  qpsLimit: number;
  expiresAt: Date | null;
};

/** Issues a key; the token is returned here once and never stored. */
export const createKey = async (
  db: Queryable,
  secret: string,
  input: CreateKeyInput,
): Promise<{ key: ApiKey; token: string }> => {
  const id = newKeyId();
  const token = await issueToken(id, secret);
  const rows = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, name, owner_id, token_hash, token_prefix, credits_remaining, credits_granted, qps_limit, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8) RETURNING ${KEY_COLUMNS}`,
    [id, input.name, input.ownerId, hashToken(token), tokenHint(token), input.credits, input.qpsLimit, input.expiresAt],
  );
  const row = rows[0];
  if (!row) throw new Error("key insert returned no row");
  return { key: toApiKey(row), token };
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

export const getKey = async (db: Queryable, id: string): Promise<ApiKey | null> => {
  const rows = await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
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
};

/** The key's credentials if it is usable now (lib/keys/usable-keys.sql), else null. */
export const loadCredentials = async (db: Queryable, id: string): Promise<KeyCredentials | null> => {
  const rows = await db.query<CredentialsRow>(
    `SELECT id, owner_id, token_hash, previous_token_hash, previous_token_expires_at, qps_limit, expires_at
     FROM usable_keys WHERE id = $1`,
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
  };
};
