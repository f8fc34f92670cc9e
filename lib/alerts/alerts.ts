import type { Queryable } from "@/lib/db/client";

/**
 * Low-credit alerts as the console shows them. Rows are written by the charge that crossed the
 * threshold (settle_requests); here they are listed, acknowledged and paired with their
 * webhook deliveries. No HTTP in here.
 */
export type AlertKind = "threshold" | "zero";

export type KeyAlert = {
  id: string;
  keyId: string;
  keyName: string;
  kind: AlertKind;
  thresholdCredits: number | null;
  /** The balance right after the charge that crossed. */
  creditsRemaining: number;
  /** The key's balance now. */
  currentCredits: number;
  createdAt: string;
  acknowledgedAt: string | null;
};

export type DeliveryStatus = "pending" | "delivered" | "failed";

export type WebhookDelivery = {
  id: string;
  alertId: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** The JSON body exactly as signed and sent. */
  payload: string;
};

type AlertRow = {
  id: string;
  key_id: string;
  key_name: string;
  kind: AlertKind;
  threshold_credits: number | null;
  credits_remaining: number;
  current_credits: number;
  created_at: Date | string;
  acknowledged_at: Date | string | null;
};

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

const toAlert = (row: AlertRow): KeyAlert => ({
  id: row.id,
  keyId: row.key_id,
  keyName: row.key_name,
  kind: row.kind,
  thresholdCredits: row.threshold_credits,
  creditsRemaining: row.credits_remaining,
  currentCredits: row.current_credits,
  createdAt: new Date(row.created_at).toISOString(),
  acknowledgedAt: iso(row.acknowledged_at),
});

const ALERT_COLUMNS = `a.id::text AS id, a.key_id, k.name AS key_name, a.kind, a.threshold_credits::float8 AS threshold_credits,
  a.credits_remaining::float8 AS credits_remaining, k.credits_remaining::float8 AS current_credits, a.created_at, a.acknowledged_at`;

export const MAX_OPEN_ALERTS = 20;

/**
 * The banner's alerts: for each active key the user owns, its newest unacknowledged alert —
 * unless the key has since recovered (topped up above the threshold, or above 0 for a "zero"
 * alert), when the warning no longer holds.
 */
export const openAlerts = async (db: Queryable, userId: string): Promise<KeyAlert[]> => {
  const rows = await db.query<AlertRow>(
    `SELECT * FROM (
       SELECT DISTINCT ON (a.key_id) ${ALERT_COLUMNS}
       FROM key_alerts a JOIN api_keys k ON k.id = a.key_id
       WHERE k.owner_id = $1 AND k.status = 'active' AND a.acknowledged_at IS NULL
       ORDER BY a.key_id, a.created_at DESC, a.id DESC
     ) latest
     WHERE CASE WHEN kind = 'zero' THEN current_credits = 0
                ELSE threshold_credits IS NULL OR current_credits <= threshold_credits END
     ORDER BY created_at DESC, id DESC
     LIMIT $2`,
    [userId, MAX_OPEN_ALERTS],
  );
  return rows.map(toAlert);
};

/** The key's alerts, newest first. */
export const keyAlerts = async (db: Queryable, keyId: string, limit = 20): Promise<KeyAlert[]> =>
  (
    await db.query<AlertRow>(
      `SELECT ${ALERT_COLUMNS} FROM key_alerts a JOIN api_keys k ON k.id = a.key_id
       WHERE a.key_id = $1 ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
      [keyId, limit],
    )
  ).map(toAlert);

/** The key of an alert, to check who may act on it; null when there is no such alert. */
export const alertKeyId = async (db: Queryable, alertId: string): Promise<string | null> => {
  if (!/^\d{1,18}$/.test(alertId)) return null;
  const rows = await db.query<{ key_id: string }>("SELECT key_id FROM key_alerts WHERE id = $1::bigint", [alertId]);
  return rows[0]?.key_id ?? null;
};

/** Acknowledges the alert and the key's older open alerts (it supersedes them). Idempotent. */
export const acknowledgeAlert = async (db: Queryable, alertId: string): Promise<number> => {
  const rows = await db.query<{ id: string }>(
    `UPDATE key_alerts SET acknowledged_at = now()
     WHERE key_id = (SELECT key_id FROM key_alerts WHERE id = $1::bigint) AND id <= $1::bigint AND acknowledged_at IS NULL
     RETURNING id::text AS id`,
    [alertId],
  );
  return rows.length;
};

type DeliveryRow = {
  id: string;
  alert_id: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date | string;
  created_at: Date | string;
  delivered_at: Date | string | null;
  payload: string;
};

/** The key's webhook deliveries, newest first. */
export const keyDeliveries = async (db: Queryable, keyId: string, limit = 20): Promise<WebhookDelivery[]> =>
  (
    await db.query<DeliveryRow>(
      `SELECT id::text AS id, alert_id::text AS alert_id, url, status, attempts, last_status, last_error, next_attempt_at,
         created_at, delivered_at, payload
       FROM webhook_deliveries WHERE key_id = $1 AND alert_id IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT $2`,
      [keyId, limit],
    )
  ).map((row) => ({
    id: row.id,
    alertId: row.alert_id,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    nextAttemptAt: row.status === "pending" ? iso(row.next_attempt_at) : null,
    createdAt: new Date(row.created_at).toISOString(),
    deliveredAt: iso(row.delivered_at),
    payload: row.payload,
  }));
