/**
 * Verifying the server's webhooks (a batch's `batch.finished`, a key's low-credit alerts): each
 * POST carries `X-SocialLookup-Signature: sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the
 * key's signing secret as the console shows it ("whsec_…"). Recompute it over the raw body, before
 * parsing, and compare in constant time (WebCrypto's verify does). Runs wherever WebCrypto does.
 */
export const SIGNATURE_HEADER = "x-sociallookup-signature";
export const EVENT_HEADER = "x-sociallookup-event";
/** The same on every retry of one delivery: deduplicate on it. */
export const DELIVERY_HEADER = "x-sociallookup-delivery";

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

export class WebhookSignatureError extends Error {
  constructor(message = "the webhook's signature does not match its body") {
    super(message);
    this.name = "WebhookSignatureError";
  }
}

const encoder = new TextEncoder();

const hexBytes = (hex: string): Uint8Array<ArrayBuffer> | null => {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return null;
  const bytes = new Uint8Array(32);
  for (let index = 0; index < 32; index += 1) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
};

/** True when `signature` (the header's value) is the HMAC of exactly this raw body under `secret`. */
export const isValidSignature = async (secret: string, body: string | Uint8Array, signature: string | null | undefined): Promise<boolean> => {
  const match = signature?.trim().match(/^sha256=(.+)$/);
  const given = match?.[1] === undefined ? null : hexBytes(match[1]);
  if (given === null || secret === "") return false;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  // A copy: WebCrypto takes no view of a shared buffer.
  const data = typeof body === "string" ? encoder.encode(body) : new Uint8Array(body);
  return crypto.subtle.verify("HMAC", key, given, data);
};

/** The event of a genuine delivery; a WebhookSignatureError for a forged or altered one. */
export const verifyWebhook = async (input: { secret: string; body: string | Uint8Array; signature: string | null | undefined }): Promise<WebhookEvent> => {
  if (!(await isValidSignature(input.secret, input.body, input.signature))) throw new WebhookSignatureError();
  const text = typeof input.body === "string" ? input.body : new TextDecoder().decode(input.body);
  return JSON.parse(text) as WebhookEvent;
};
