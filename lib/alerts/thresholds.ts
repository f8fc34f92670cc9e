import type { Queryable } from "@/lib/db/client";
import type { AlertThreshold } from "./threshold-input";

/**
 * A key's several alert thresholds (lib/alerts/thresholds.sql fires and re-arms them). Replacing
 * the list arms each threshold the balance is above now; one it is already at or below waits for
 * a top-up or a refill to take the balance above it.
 */
export type AlertThresholdView = AlertThreshold & {
  /** The threshold in credits now (a percentage of the credits granted, rounded up). */
  thresholdCredits: number;
  armed: boolean;
};

type ThresholdRow = { key_id: string; credits: number | string | null; percent: number | null; effective: number | string; armed: boolean };

const toView = (row: ThresholdRow): AlertThresholdView => ({
  ...(row.credits !== null ? { credits: Number(row.credits) } : { percent: row.percent ?? 0 }),
  thresholdCredits: Number(row.effective),
  armed: row.armed,
});

/** Thresholds of these keys, highest first, by key id. */
export const thresholdsOfKeys = async (db: Queryable, keyIds: readonly string[]): Promise<Map<string, AlertThresholdView[]>> => {
  const byKey = new Map<string, AlertThresholdView[]>();
  if (keyIds.length === 0) return byKey;
  const rows = await db.query<ThresholdRow>(
    `SELECT t.key_id, t.credits, t.percent, t.armed, alert_threshold_credits(t.credits, t.percent, k.credits_granted) AS effective
     FROM key_alert_thresholds t JOIN key_credits k ON k.id = t.key_id
     WHERE t.key_id IN (SELECT json_array_elements_text($1::json)) ORDER BY t.key_id, effective DESC, t.id`,
    [JSON.stringify(keyIds)],
  );
  for (const row of rows) byKey.set(row.key_id, [...(byKey.get(row.key_id) ?? []), toView(row)]);
  return byKey;
};

/** Replaces a key's thresholds (call inside the transaction that checked the caller may). */
export const replaceThresholds = async (db: Queryable, keyId: string, thresholds: readonly AlertThreshold[]): Promise<void> => {
  await db.query("DELETE FROM key_alert_thresholds WHERE key_id = $1", [keyId]);
  if (thresholds.length === 0) return;
  await db.query(
    `INSERT INTO key_alert_thresholds (key_id, credits, percent, armed)
     SELECT k.id, t.credits, t.percent, k.credits_remaining > alert_threshold_credits(t.credits, t.percent, k.credits_granted)
     FROM key_credits k, json_to_recordset($2::json) AS t(credits bigint, percent integer)
     WHERE k.id = $1`,
    [keyId, JSON.stringify(thresholds.map((threshold) => ("credits" in threshold ? { credits: threshold.credits } : { percent: threshold.percent })))],
  );
};
