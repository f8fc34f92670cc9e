import { webhookUrlProblem } from "@/lib/alerts/settings";
import type { WebhookEvents } from "@/lib/alerts/webhook-events";
import type { Queryable } from "@/lib/db/client";
import { batchCounts, type BatchCounts } from "./repository";

/**
 * What is wrong with a batch's webhookUrl, in a sentence, or null: an http or https URL only (a
 * javascript:, data: or ftp: URL is named as such), then the alert webhooks' address rules.
 */
export const batchWebhookProblem = (raw: string): string | null => {
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== "http" && scheme !== "https") return "The webhook URL must be an http or https URL.";
  return webhookUrlProblem(raw);
};

/**
 * The batch.finished event: when a batch ends (done, stopped, canceled), one webhook delivery of
 * its counts, credits and results URL — to the batch's webhookUrl, else to the paying key's alert
 * webhook. Registered with the alert worker at startup (registerBatchWebhooks, called by
 * lib/jobs.ts), it goes out through that worker (lib/alerts/webhooks.ts): the same signature (the
 * paying key's secret), retries, delivery log and address rules. Each end of a batch is one event
 * (ended_count): a stopped batch resumed and done later sends a second one. A batch is sent once
 * its runner has let go of it, so the counts are final.
 */
export type BatchFinishedPayload = {
  event: "batch.finished";
  batchId: string;
  operation: string;
  status: "done" | "stopped" | "canceled";
  stopReason: string | null;
} & BatchCounts & {
  keyId: string;
  resultsUrl: string;
  at: string;
};

type Ended = {
  id: string;
  ended_count: number;
  key_id: string;
  url: string;
  via_api: boolean;
  operation: string;
  status: BatchFinishedPayload["status"];
  stop_reason: string | null;
  total: number;
  done: number;
  succeeded: number;
  not_found: number;
  failed: number;
  credits_spent: number | string;
  max_credits: number | string;
  at: string;
};

/** Queues a delivery for every batch end not yet queued (younger than maxAgeMs); returns how many. */
export const queueFinishedBatches = async (db: Queryable, publicUrl: string, maxAgeMs: number, limit: number): Promise<number> => {
  const ended = await db.query<Ended>(
    `SELECT b.id, b.ended_count, k.id AS key_id, COALESCE(b.webhook_url, k.alert_webhook_url) AS url, b.key_id IS NOT NULL AS via_api,
       b.operation, b.status, b.stop_reason, b.total, b.done, b.succeeded, b.not_found, b.failed,
       b.credits_spent::bigint AS credits_spent, b.max_credits::bigint AS max_credits,
       to_char(b.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
     FROM batches b LEFT JOIN users u ON u.id = b.user_id JOIN api_keys k ON k.id = COALESCE(b.key_id, u.console_key_id)
     WHERE b.ended_count > 0 AND b.status IN ('done', 'stopped', 'canceled')
       AND b.updated_at > now() - make_interval(secs => $1::float8 / 1000)
       AND (b.lease_owner IS NULL OR b.lease_expires_at < now())
       AND COALESCE(b.webhook_url, k.alert_webhook_url) IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.batch_id = b.id AND d.batch_end = b.ended_count)
     ORDER BY b.updated_at LIMIT $2`,
    [maxAgeMs, limit],
  );
  let queued = 0;
  for (const batch of ended) {
    const payload: BatchFinishedPayload = {
      event: "batch.finished",
      batchId: batch.id,
      operation: batch.operation,
      status: batch.status,
      stopReason: batch.stop_reason,
      ...batchCounts(batch),
      keyId: batch.key_id,
      resultsUrl: `${publicUrl}${batch.via_api ? "/v1/batches" : "/api/batches"}/${batch.id}/results`,
      at: batch.at,
    };
    const rows = await db.query(
      `INSERT INTO webhook_deliveries (batch_id, batch_end, key_id, url, payload) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (batch_id, batch_end) WHERE batch_id IS NOT NULL DO NOTHING RETURNING id`,
      [batch.id, batch.ended_count, batch.key_id, batch.url, JSON.stringify(payload)],
    );
    queued += rows.length;
  }
  return queued;
};

/** Registers batch.finished with the webhook worker; results URLs are built on publicUrl. */
export const registerBatchWebhooks = (events: WebhookEvents, publicUrl: string): void =>
  events.register({
    name: "batch.finished",
    queue: (db, window) => queueFinishedBatches(db, publicUrl, window.maxAgeMs, window.limit),
  });

/** The last batch.finished delivery of a batch, for its page and GET /v1/batches/{id}. */
export type BatchWebhookStatus = {
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatus: number | null;
  deliveredAt: string | null;
};

export const batchWebhookStatus = async (db: Queryable, batchId: string): Promise<BatchWebhookStatus | null> => {
  const rows = await db.query<{ status: BatchWebhookStatus["status"]; attempts: number; last_status: number | null; delivered_at: Date | string | null }>(
    `SELECT status, attempts, last_status, delivered_at FROM webhook_deliveries WHERE batch_id = $1 ORDER BY batch_end DESC LIMIT 1`,
    [batchId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at).toISOString(),
  };
};
