/**
 * Verifying the server's webhooks (a batch's `batch.finished`, a key's low-credit alerts). Each
 * POST carries
 *
 *   X-SocialLookup-Delivery: <delivery id>    the same on every retry of one delivery
 *   X-SocialLookup-Timestamp: <Unix seconds>  when this attempt was sent
 *   X-SocialLookup-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<delivery id>.<raw body>">
 *
 * keyed with the key's signing secret as the console shows it ("whsec_…"). verifyWebhook checks
 * the timestamp is within 5 minutes of this clock, then recomputes the HMAC over the raw body
 * (before parsing) and compares in constant time (WebCrypto's verify does); it answers the event
 * with its signed delivery id. A receiver acts on each delivery id once: a retry repeats it, and
 * so does a captured delivery replayed within those 5 minutes; later, the timestamp refuses it.
 * Runs wherever WebCrypto does.
 */
export const SIGNATURE_HEADER = "x-sociallookup-signature";
export const EVENT_HEADER = "x-sociallookup-event";
/** The same on every retry of one delivery, and signed: deduplicate on it. */
export const DELIVERY_HEADER = "x-sociallookup-delivery";
/** When the server sent this attempt, in Unix seconds; signed. */
export const TIMESTAMP_HEADER = "x-sociallookup-timestamp";
/** How far a delivery's timestamp may be from this clock, either way, by default. */
export const DEFAULT_TOLERANCE_S = 300;

export type BatchFinishedEvent = {
  event: "batch.finished";
  batchId: string;
  operation: string;
  status: "done" | "stopped" | "canceled";
  stopReason: "cap" | "credits" | "key" | null;
  total: number;
  done: number;
  succeeded: number;
  notFound: number;
  failed: number;
  creditsSpent: number;
  maxCredits: number;
  keyId: string | null;
  resultsUrl: string;
  at: string;
};

export type CreditsAlertEvent = {
  event: "key.credits.low" | "key.credits.zero";
  keyId: string;
  keyName: string;
  creditsRemaining: number;
  threshold: number | null;
  at: string;
};

export type WebhookEvent = BatchFinishedEvent | CreditsAlertEvent;

/** A genuine, fresh delivery. */
export type VerifiedWebhook = {
  event: WebhookEvent;
  /** The signed delivery id: act on each once (a retry or a replay repeats it). */
  deliveryId: string;
  /** When the server sent this attempt (its signed timestamp). */
  sentAt: Date;
};

/** A request's headers: fetch's Headers, or Node's `request.headers` (names in lower case). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export type VerifyOptions = {
  /** The key's signing secret ("whsec_…"). */
  secret: string;
  /** The raw body, exactly as received. */
  body: string | Uint8Array;
  headers: WebhookHeaders;
  /** Default 300 (5 minutes). */
  toleranceS?: number;
  /** This clock, in ms since the epoch (tests pass their own). */
  now?: number;
};

/** Why a delivery was refused: no signature headers, a timestamp too far off, or a signature that does not match. */
export type WebhookRefusal = "missing" | "stale" | "signature";

export class WebhookSignatureError extends Error {
  readonly reason: WebhookRefusal;

  constructor(reason: WebhookRefusal, message = MESSAGES[reason]) {
    super(message);
    this.name = "WebhookSignatureError";
    this.reason = reason;
  }
}

const MESSAGES: Record<WebhookRefusal, string> = {
  missing: "the webhook carries no signature, timestamp or delivery id",
  stale: "the webhook's timestamp is more than the tolerance away from this clock (a replay, or a clock that is off)",
  signature: "the webhook's signature does not match its timestamp, delivery id and body",
};

const encoder = new TextEncoder();

const hexBytes = (hex: string): Uint8Array<ArrayBuffer> | null => {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return null;
  const bytes = new Uint8Array(32);
  for (let index = 0; index < 32; index += 1) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
};

const headerOf = (headers: WebhookHeaders, name: string): string | null => {
  if (headers instanceof Headers) return headers.get(name);
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const value = typeof entry === "string" ? entry : entry?.[0];
  return value === undefined ? null : value;
};

const signedBytes = (timestamp: string, deliveryId: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> => {
  const prefix = encoder.encode(`${timestamp}.${deliveryId}.`);
  const raw = typeof body === "string" ? encoder.encode(body) : body;
  const data = new Uint8Array(prefix.length + raw.length);
  data.set(prefix);
  data.set(raw, prefix.length);
  return data;
};

/** The event of a genuine delivery sent within the tolerance, with its signed delivery id; a WebhookSignatureError otherwise. */
export const verifyWebhook = async (options: VerifyOptions): Promise<VerifiedWebhook> => {
  const signature = headerOf(options.headers, SIGNATURE_HEADER)?.trim().match(/^sha256=(.+)$/)?.[1];
  const given = signature === undefined ? null : hexBytes(signature);
  const timestamp = headerOf(options.headers, TIMESTAMP_HEADER)?.trim() ?? "";
  const deliveryId = headerOf(options.headers, DELIVERY_HEADER)?.trim() ?? "";
  if (given === null || !/^\d{1,12}$/.test(timestamp) || deliveryId === "" || options.secret === "") throw new WebhookSignatureError("missing");
  const nowS = (options.now ?? Date.now()) / 1000;
  if (Math.abs(nowS - Number(timestamp)) > (options.toleranceS ?? DEFAULT_TOLERANCE_S)) throw new WebhookSignatureError("stale");
  const key = await crypto.subtle.importKey("raw", encoder.encode(options.secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  if (!(await crypto.subtle.verify("HMAC", key, given, signedBytes(timestamp, deliveryId, options.body)))) throw new WebhookSignatureError("signature");
  const text = typeof options.body === "string" ? options.body : new TextDecoder().decode(options.body);
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookSignatureError("signature", "the webhook's body is not JSON");
  }
  if (typeof event !== "object" || event === null || !("event" in event)) throw new WebhookSignatureError("signature", "the webhook's body is not an event");
  return { event: event as WebhookEvent, deliveryId, sentAt: new Date(Number(timestamp) * 1000) };
};

/** True when verifyWebhook would accept the delivery. */
export const isValidSignature = async (options: VerifyOptions): Promise<boolean> =>
  verifyWebhook(options).then(
    () => true,
    (error: unknown) => {
      if (error instanceof WebhookSignatureError) return false;
      throw error;
    },
  );
