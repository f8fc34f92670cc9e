import crypto from "node:crypto";
import type { Queryable } from "@/lib/db/client";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { outboundPost, OutboundRefusedError, type OutboundPolicy, type OutboundPost } from "@/lib/security/outbound";
import { derivedKey } from "@/lib/security/secrets";
import { createWebhookEvents, type WebhookEvents } from "./webhook-events";

/**
 * Webhook delivery of low-credit alerts (and of the events other domains register, webhook-events.ts), off the request path: /v1 only writes the key_alerts
 * row (inside its charge); this worker, polling in the server process, turns each new alert of
 * a key with a webhook URL into one webhook_deliveries row and POSTs it.
 *
 *   POST <url>
 *   Content-Type: application/json
 *   X-SocialLookup-Event: key.credits.low | key.credits.zero
 *   X-SocialLookup-Delivery: <delivery id>   (the same on every retry: deduplicate on it)
 *   X-SocialLookup-Timestamp: <Unix seconds when this attempt was sent>
 *   X-SocialLookup-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<delivery id>.<raw body>", keyed with the key's secret>
 *   {"event":"key.credits.low","keyId":"key_…","keyName":"…","creditsRemaining":40,"threshold":50,"at":"2025-…Z"}
 *
 * The secret is per key, derived from AUTH_SECRET (HKDF, purpose `webhook:<keyId>`), shown to the
 * key's owner in the console; the HMAC key is the secret string as shown ("whsec_…").
 * The signature covers the timestamp and the delivery id as well as the body, so a receiver
 * that refuses a timestamp more than 5 minutes off and remembers the delivery ids it accepted
 * (for those 5 minutes at least) cannot be replayed a captured delivery. Each attempt is signed
 * afresh (its own timestamp, the same delivery id).
 * A 2xx answer delivers. Anything else (non-2xx, timeout, refused connection) is retried after
 * 1 s, 2 s, 4 s, 8 s; after the 5th failed attempt the delivery is marked failed. Redirects are
 * not followed. Only public addresses are reached unless WEBHOOK_ALLOWED_NETWORKS says otherwise,
 * checked on the resolved address at connect time (lib/security/outbound.ts); the delivery log
 * the user sees says only that delivery failed, never why the socket did (that would make the
 * webhook a port scanner of the server's networks). Several instances may run the worker: a delivery is claimed with a lease
 * (FOR UPDATE SKIP LOCKED), and at most one delivery exists per alert (unique index).
 * Alerts older than a day when first seen (worker down, webhook set later) are not sent.
 */
export const SIGNATURE_HEADER = "X-SocialLookup-Signature";
export const EVENT_HEADER = "X-SocialLookup-Event";
export const DELIVERY_HEADER = "X-SocialLookup-Delivery";

/** The worker's own events; registered kinds add theirs (webhook-events.ts). */
export type AlertEvent = "key.credits.low" | "key.credits.zero";

export type WebhookPayload = {
  event: AlertEvent;
  keyId: string;
  keyName: string;
  creditsRemaining: number;
  threshold: number | null;
  at: string;
};

/** The key's signing secret, as the console shows it to the key's owner. */
export const webhookSecret = (keyId: string): string => `whsec_${derivedKey(`webhook:${keyId}`).toString("base64url")}`;

export const TIMESTAMP_HEADER = "X-SocialLookup-Timestamp";

/** How far a delivery's timestamp may be from the receiver's clock, either way. */
export const SIGNATURE_TOLERANCE_S = 300;

/** What a signature covers: the attempt's timestamp (Unix seconds), the delivery id, the raw body. */
export type SignedDelivery = { timestamp: number; deliveryId: string; body: string };

export const signDelivery = (secret: string, delivery: SignedDelivery): string =>
  `sha256=${crypto.createHmac("sha256", secret).update(`${delivery.timestamp}.${delivery.deliveryId}.${delivery.body}`, "utf8").digest("hex")}`;

/**
 * What a receiver does: the timestamp within SIGNATURE_TOLERANCE_S of its clock, then the
 * signature recomputed over timestamp, delivery id and raw body, compared in constant time.
 */
export const verifyDelivery = (
  secret: string,
  received: { timestamp: string | null | undefined; deliveryId: string | null | undefined; body: string; signature: string | null | undefined },
  nowMs: number = Date.now(),
): boolean => {
  const { timestamp, deliveryId, signature } = received;
  if (!signature || !deliveryId || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_S) return false;
  const expected = Buffer.from(signDelivery(secret, { timestamp: Number(timestamp), deliveryId, body: received.body }));
  const given = Buffer.from(signature.trim());
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
};

export type AlertWorkerOptions = {
  /** Pause between polls. */
  pollMs?: number;
  /** Wait before retry n (1-based: [after attempt 1, after attempt 2, …]); the last value repeats. */
  backoffMs?: readonly number[];
  maxAttempts?: number;
  /** Per attempt. */
  timeoutMs?: number;
  batchSize?: number;
  /** Alerts older than this when first seen are not sent. */
  maxAlertAgeMs?: number;
  /** Where deliveries may go; WEBHOOK_ALLOWED_NETWORKS by default. */
  policy?: OutboundPolicy;
  /** How a delivery is sent; outboundPost(policy) by default. */
  post?: OutboundPost;
  secretFor?: (keyId: string) => string;
  /** The other domains' events this worker also queues and delivers; none by default. */
  events?: WebhookEvents;
  /** The clock each attempt's timestamp is read from (ms since the epoch). */
  now?: () => number;
};

export type TickResult = { queued: number; delivered: number; retried: number; failed: number };

export type AlertWorker = {
  /** One round: queue new alerts, send what is due. The loop calls it; tests may too. */
  tick(): Promise<TickResult>;
  /** Stops the loop and waits for a round in progress. */
  stop(): Promise<void>;
};

export const DEFAULT_BACKOFF_MS = [1000, 2000, 4000, 8000] as const;
export const DEFAULT_MAX_ATTEMPTS = 5;

type AlertToQueue = {
  id: string;
  key_id: string;
  url: string;
  key_name: string;
  kind: "threshold" | "zero";
  credits_remaining: number;
  threshold_credits: number | null;
  at: string;
};

type DueDelivery = { id: string; key_id: string; url: string; payload: string; attempts: number };

const payloadOf = (alert: AlertToQueue): string =>
  JSON.stringify({
    event: alert.kind === "zero" ? "key.credits.zero" : "key.credits.low",
    keyId: alert.key_id,
    keyName: alert.key_name,
    creditsRemaining: alert.credits_remaining,
    threshold: alert.threshold_credits,
    at: alert.at,
  } satisfies WebhookPayload);

const queueNewAlerts = async (db: Queryable, maxAgeMs: number, limit: number): Promise<number> => {
  const alerts = await db.query<AlertToQueue>(
    `SELECT a.id::text AS id, a.key_id, k.alert_webhook_url AS url, k.name AS key_name, a.kind,
       a.credits_remaining::float8 AS credits_remaining, a.threshold_credits::float8 AS threshold_credits,
       to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
     FROM key_alerts a JOIN api_keys k ON k.id = a.key_id
     WHERE k.alert_webhook_url IS NOT NULL AND a.created_at > now() - make_interval(secs => $1::float8 / 1000)
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.alert_id = a.id)
     ORDER BY a.id LIMIT $2`,
    [maxAgeMs, limit],
  );
  let queued = 0;
  for (const alert of alerts) {
    const rows = await db.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (alert_id, key_id, url, payload) VALUES ($1::bigint, $2, $3, $4)
       ON CONFLICT (alert_id) DO NOTHING RETURNING id::text AS id`,
      [alert.id, alert.key_id, alert.url, payloadOf(alert)],
    );
    queued += rows.length;
  }
  return queued;
};

const claimDue = (db: Queryable, limit: number, leaseMs: number): Promise<DueDelivery[]> =>
  db.query<DueDelivery>(
    `UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => $2::float8 / 1000)
     WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
       ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     RETURNING id::text AS id, key_id, url, payload, attempts`,
    [limit, leaseMs],
  );

/** The X-SocialLookup-Event of a delivery: its payload's event when known here, else key.credits.low. */
const eventOf = (payload: string, registered: ReadonlySet<string>): string => {
  try {
    const parsed: unknown = JSON.parse(payload);
    const event = typeof parsed === "object" && parsed !== null && "event" in parsed ? parsed.event : null;
    return event === "key.credits.zero" || (typeof event === "string" && registered.has(event)) ? event : "key.credits.low";
  } catch {
    return "key.credits.low";
  }
};

/** What the delivery log says when no HTTP answer came back, whatever the reason. */
export const DELIVERY_FAILED = "Delivery failed: no answer from the receiver.";

type AttemptOutcome = { ok: boolean; status: number | null; error: string | null; cause: string | null };

const causeOf = (error: unknown): string => {
  if (error instanceof OutboundRefusedError) return "address refused";
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  return code || describeError(error);
};

const attempt = async (
  delivery: DueDelivery,
  options: { post: OutboundPost; timeoutMs: number; secretFor: (keyId: string) => string; registered: ReadonlySet<string>; now: () => number },
): Promise<AttemptOutcome> => {
  const event = eventOf(delivery.payload, options.registered);
  const timestamp = Math.floor(options.now() / 1000);
  try {
    const status = await options.post(delivery.url, {
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "SocialLookup-Webhooks/1.0",
        [EVENT_HEADER]: event,
        [DELIVERY_HEADER]: delivery.id,
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: signDelivery(options.secretFor(delivery.key_id), { timestamp, deliveryId: delivery.id, body: delivery.payload }),
      },
      body: delivery.payload,
      timeoutMs: options.timeoutMs,
    });
    return status >= 200 && status < 300
      ? { ok: true, status, error: null, cause: null }
      : { ok: false, status, error: `HTTP ${status}`, cause: null };
  } catch (error) {
    return { ok: false, status: null, error: DELIVERY_FAILED, cause: causeOf(error).slice(0, 200) };
  }
};

export const startAlertWorker = (
  database: Queryable | (() => Promise<Queryable>),
  options: AlertWorkerOptions = {},
): AlertWorker => {
  const pollMs = options.pollMs ?? 1000;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const timeoutMs = options.timeoutMs ?? 5000;
  const batchSize = options.batchSize ?? 20;
  const maxAlertAgeMs = options.maxAlertAgeMs ?? 86_400_000;
  const post = options.post ?? outboundPost(options.policy ?? env().WEBHOOK_ALLOWED_NETWORKS);
  const events = options.events ?? createWebhookEvents();
  const secretFor = options.secretFor ?? webhookSecret;
  const now = options.now ?? Date.now;
  const db = typeof database === "function" ? database : async () => database;
  // A claimed delivery is someone's for this long: longer than one attempt can take.
  const leaseMs = timeoutMs + 30_000;

  const tick = async (): Promise<TickResult> => {
    const conn = await db();
    const kinds = events.kinds();
    let queued = await queueNewAlerts(conn, maxAlertAgeMs, batchSize * 5);
    for (const kind of kinds) queued += await kind.queue(conn, { maxAgeMs: maxAlertAgeMs, limit: batchSize * 5 });
    const send = { post, timeoutMs, secretFor, now, registered: new Set(kinds.map((kind) => kind.name)) };
    const result: TickResult = { queued, delivered: 0, retried: 0, failed: 0 };
    const due = await claimDue(conn, batchSize, leaseMs);
    await Promise.all(
      due.map(async (delivery) => {
        const outcome = await attempt(delivery, send);
        const attempts = delivery.attempts + 1;
        if (outcome.ok) {
          result.delivered += 1;
          await conn.query(
            `UPDATE webhook_deliveries SET status = 'delivered', attempts = $2, last_status = $3, last_error = NULL, delivered_at = now()
             WHERE id = $1::bigint`,
            [delivery.id, attempts, outcome.status],
          );
          return;
        }
        const giveUp = attempts >= maxAttempts;
        if (giveUp) result.failed += 1;
        else result.retried += 1;
        const waitMs = backoffMs[Math.min(attempts - 1, backoffMs.length - 1)] ?? 1000;
        await conn.query(
          `UPDATE webhook_deliveries SET status = $2, attempts = $3, last_status = $4, last_error = $5,
             next_attempt_at = now() + make_interval(secs => $6::float8 / 1000)
           WHERE id = $1::bigint`,
          [delivery.id, giveUp ? "failed" : "pending", attempts, outcome.status, outcome.error, waitMs],
        );
        // The cause goes to the operator's log only.
        if (giveUp) log.warn("webhook delivery failed", { deliveryId: delivery.id, keyId: delivery.key_id, attempts, error: outcome.error, cause: outcome.cause });
      }),
    );
    return result;
  };

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const loop = () => {
    if (stopped) return;
    running = tick()
      .catch((error: unknown) => log.error("alert worker round failed", { err: error }))
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(loop, pollMs);
        // Never keeps a process (CLI, test runner) alive on its own.
        timer.unref?.();
      });
  };
  loop();

  return {
    tick,
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
};
