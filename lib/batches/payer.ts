import type { Db } from "@/lib/db/client";
import { consoleToken } from "@/lib/keys/manage";
import { decryptSecret, encryptSecret } from "@/lib/security/aead";
import { derivedKey } from "@/lib/security/secrets";
import { batchTokenSealed, type BatchRow } from "./repository";

/**
 * Which key pays for and paces a batch. A console batch: the owner's console key, read again as
 * the batch runs (the analyst may switch keys). A /v1 batch: the key that created it, whose
 * token is kept sealed (AES-256-GCM, bound to the batch) so the runner can look pages up with it
 * like any client; revoking the key stops the batch at its next lookup.
 */
export type Payer = { keyId: string; token: string; qpsLimit: number };

const batchTokenKey = () => derivedKey("batch-token");

export const sealBatchToken = (batchId: string, token: string): string => encryptSecret(batchTokenKey(), token, `batch-token:${batchId}`);

const qpsOf = async (db: Db, keyId: string): Promise<number | null> => {
  const rows = await db.query<{ qps_limit: number }>("SELECT qps_limit FROM api_keys WHERE id = $1", [keyId]);
  const qpsLimit = rows[0]?.qps_limit;
  return qpsLimit === undefined ? null : Number(qpsLimit);
};

export const payerOf = async (db: Db, claimed: Pick<BatchRow, "id" | "user_id" | "key_id" | "workspace_id">): Promise<Payer | null> => {
  // Read again: a removed member's batch is handed to another key while it runs (docs/teams.md).
  const rows = await db.query<Pick<BatchRow, "key_id" | "workspace_id">>("SELECT key_id, workspace_id FROM batches WHERE id = $1", [claimed.id]);
  const batch = { ...claimed, ...rows[0] };
  let credentials: { keyId: string; token: string } | null;
  // A console batch: the owner's console key in the batch's workspace (docs/teams.md).
  if (batch.key_id === null) credentials = batch.user_id === null ? null : await consoleToken(db, batch.user_id, batch.workspace_id);
  else {
    const sealed = await batchTokenSealed(db, batch.id);
    credentials = sealed === null ? null : { keyId: batch.key_id, token: decryptSecret(batchTokenKey(), sealed, `batch-token:${batch.id}`) };
  }
  if (!credentials) return null;
  const qpsLimit = await qpsOf(db, credentials.keyId);
  return qpsLimit === null ? null : { ...credentials, qpsLimit };
};
