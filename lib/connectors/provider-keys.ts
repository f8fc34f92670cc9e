import type { Queryable } from "@/lib/db/client";
import { decryptSecret, encryptSecret } from "@/lib/security/aead";

/**
 * Provider keys kept for later use: each user's own key (UPSTREAM_KEY_MODE=per-user) and the
 * admin-set shared key and base URL (table settings). Keys are sealed with AES-256-GCM, the
 * sealed text bound to its owner or setting name; only a hint ever leaves this module.
 * `sealKey` is derivedKey("provider-keys") in the server; tests pass their own.
 */
export const providerKeyHint = (key: string): string => (key.length >= 12 ? `…${key.slice(-4)}` : "…");

const userAad = (userId: string) => `provider-key:${userId}`;
const settingAad = (name: string) => `setting:${name}`;

export type ProviderKeyView = {
  hint: string;
  validatedAt: Date;
  updatedAt: Date;
  lastError: string | null;
  lastErrorAt: Date | null;
};

type ProviderKeyRow = {
  key_hint: string;
  validated_at: Date | string;
  updated_at: Date | string;
  last_error: string | null;
  last_error_at: Date | string | null;
};

export const getProviderKeyView = async (db: Queryable, userId: string): Promise<ProviderKeyView | null> => {
  const rows = await db.query<ProviderKeyRow>(
    "SELECT key_hint, validated_at, updated_at, last_error, last_error_at FROM provider_keys WHERE user_id = $1",
    [userId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    hint: row.key_hint,
    validatedAt: new Date(row.validated_at),
    updatedAt: new Date(row.updated_at),
    lastError: row.last_error,
    lastErrorAt: row.last_error_at === null ? null : new Date(row.last_error_at),
  };
};

/** The user's provider key in clear, for an upstream call; null when none is stored. */
export const loadProviderKey = async (db: Queryable, sealKey: Buffer, userId: string): Promise<string | null> => {
  const rows = await db.query<{ key_encrypted: string }>("SELECT key_encrypted FROM provider_keys WHERE user_id = $1", [userId]);
  const sealed = rows[0]?.key_encrypted;
  return sealed === undefined ? null : decryptSecret(sealKey, sealed, userAad(userId));
};

/** Stores (or replaces) a user's validated provider key. */
export const saveProviderKey = async (db: Queryable, sealKey: Buffer, userId: string, key: string): Promise<ProviderKeyView> => {
  const rows = await db.query<ProviderKeyRow>(
    `INSERT INTO provider_keys (user_id, key_encrypted, key_hint, validated_at, updated_at)
     VALUES ($1, $2, $3, now(), now())
     ON CONFLICT (user_id) DO UPDATE SET key_encrypted = EXCLUDED.key_encrypted, key_hint = EXCLUDED.key_hint,
       validated_at = EXCLUDED.validated_at, updated_at = EXCLUDED.updated_at, last_error = NULL, last_error_at = NULL
     RETURNING key_hint, validated_at, updated_at, last_error, last_error_at`,
    [userId, encryptSecret(sealKey, key, userAad(userId)), providerKeyHint(key)],
  );
  const row = rows[0];
  if (!row) throw new Error("provider key upsert returned no row");
  return {
    hint: row.key_hint,
    validatedAt: new Date(row.validated_at),
    updatedAt: new Date(row.updated_at),
    lastError: null,
    lastErrorAt: null,
  };
};

export const deleteProviderKey = async (db: Queryable, userId: string): Promise<boolean> =>
  (await db.query<{ user_id: string }>("DELETE FROM provider_keys WHERE user_id = $1 RETURNING user_id", [userId])).length > 0;

/** Remembers the provider's latest refusal of a user's key, shown on their provider key page. */
export const recordProviderKeyError = async (db: Queryable, userId: string, message: string): Promise<void> => {
  await db.query("UPDATE provider_keys SET last_error = $2, last_error_at = now() WHERE user_id = $1", [userId, message]);
};

// Admin settings of the shared upstream connection.
export const SETTING_BASE_URL = "upstream.base_url";
export const SETTING_API_KEY = "upstream.api_key";

export type StoredUpstreamSettings = {
  baseUrl: string | null;
  apiKey: string | null;
  updatedAt: Date | null;
};

export const loadUpstreamSettings = async (db: Queryable, sealKey: Buffer): Promise<StoredUpstreamSettings> => {
  const rows = await db.query<{ name: string; value: string; encrypted: boolean; updated_at: Date | string }>(
    "SELECT name, value, encrypted, updated_at FROM settings WHERE name = ANY($1::text[])",
    [[SETTING_BASE_URL, SETTING_API_KEY]],
  );
  const settings: StoredUpstreamSettings = { baseUrl: null, apiKey: null, updatedAt: null };
  for (const row of rows) {
    const value = row.encrypted ? decryptSecret(sealKey, row.value, settingAad(row.name)) : row.value;
    if (row.name === SETTING_BASE_URL) settings.baseUrl = value;
    if (row.name === SETTING_API_KEY) settings.apiKey = value;
    const updatedAt = new Date(row.updated_at);
    if (settings.updatedAt === null || updatedAt > settings.updatedAt) settings.updatedAt = updatedAt;
  }
  return settings;
};

/** Sets (string) or clears (null) the admin's base URL and shared key; undefined leaves one as it is. */
export const saveUpstreamSettings = async (
  db: Queryable,
  sealKey: Buffer,
  changes: { baseUrl?: string | null; apiKey?: string | null },
  updatedBy: string | null,
): Promise<void> => {
  const write = async (name: string, value: string | null | undefined, encrypted: boolean) => {
    if (value === undefined) return;
    if (value === null) {
      await db.query("DELETE FROM settings WHERE name = $1", [name]);
      return;
    }
    await db.query(
      `INSERT INTO settings (name, value, encrypted, updated_by, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, encrypted = EXCLUDED.encrypted,
         updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
      [name, encrypted ? encryptSecret(sealKey, value, settingAad(name)) : value, encrypted, updatedBy],
    );
  };
  await write(SETTING_BASE_URL, changes.baseUrl, false);
  await write(SETTING_API_KEY, changes.apiKey, true);
};
