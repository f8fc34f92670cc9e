import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { signDelivery } from "@/lib/alerts/webhooks";
import { startWebhookReceiver, type WebhookReceiver } from "@/clients/typescript/src/receiver";
import { isValidSignature, verifyWebhook, WebhookSignatureError } from "@/clients/typescript/src/index";

/**
 * The TypeScript SDK's webhook checks against deliveries signed by the server's own signing
 * function (lib/alerts/webhooks.ts): genuine ones verify and give their signed delivery id; a
 * tampered body, delivery id or timestamp, another secret, a missing header, or a timestamp more
 * than 5 minutes off are refused; the receiver hands each delivery id on once, so a replay within
 * the 5 minutes is dropped and one after them refused. The API suite checks a real delivery.
 */
const secret = "whsec_test-secret";
const body = JSON.stringify({ event: "batch.finished", batchId: "b1", status: "done" });

const delivered = (options: { timestamp?: number; deliveryId?: string; body?: string; secret?: string } = {}) => {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const deliveryId = options.deliveryId ?? "42";
  const signature = signDelivery(options.secret ?? secret, { timestamp, deliveryId, body: options.body ?? body });
  return {
    "x-sociallookup-event": "batch.finished",
    "x-sociallookup-delivery": deliveryId,
    "x-sociallookup-timestamp": String(timestamp),
    "x-sociallookup-signature": signature,
  };
};

const refusal = (promise: Promise<unknown>) => promise.then(() => "accepted", (error: unknown) => (error instanceof WebhookSignatureError ? error.reason : `other: ${String(error)}`));

describe("verifyWebhook", () => {
  it("accepts a delivery signed by the server and gives its event, signed delivery id and time", async () => {
    const headers = delivered({ timestamp: 1_700_000_000 });
    const verified = await verifyWebhook({ secret, body, headers, now: 1_700_000_100_000 });
    expect(verified).toEqual({ event: JSON.parse(body), deliveryId: "42", sentAt: new Date(1_700_000_000_000) });
    // fetch's Headers and a raw body in bytes do too.
    await expect(verifyWebhook({ secret, body: new TextEncoder().encode(body), headers: new Headers(headers), now: 1_700_000_000_000 })).resolves.toMatchObject({ deliveryId: "42" });
    await expect(isValidSignature({ secret, body, headers, now: 1_700_000_000_000 })).resolves.toBe(true);
  });

  it("refuses a tampered body, delivery id or timestamp, and another secret", async () => {
    const headers = delivered();
    expect(await refusal(verifyWebhook({ secret, body: `${body} `, headers }))).toBe("signature");
    expect(await refusal(verifyWebhook({ secret, body, headers: { ...headers, "x-sociallookup-delivery": "43" } }))).toBe("signature");
    const oneSecondLater = String(Number(headers["x-sociallookup-timestamp"]) + 1);
    expect(await refusal(verifyWebhook({ secret, body, headers: { ...headers, "x-sociallookup-timestamp": oneSecondLater } }))).toBe("signature");
    expect(await refusal(verifyWebhook({ secret: "whsec_other", body, headers }))).toBe("signature");
    await expect(isValidSignature({ secret: "whsec_other", body, headers })).resolves.toBe(false);
  });

  it("refuses a timestamp more than 5 minutes off either way (a replay), and one outside a tolerance of its own", async () => {
    const sentAt = 1_700_000_000;
    const headers = delivered({ timestamp: sentAt });
    expect(await refusal(verifyWebhook({ secret, body, headers, now: (sentAt + 300) * 1000 }))).toBe("accepted");
    expect(await refusal(verifyWebhook({ secret, body, headers, now: (sentAt + 301) * 1000 }))).toBe("stale");
    expect(await refusal(verifyWebhook({ secret, body, headers, now: (sentAt - 301) * 1000 }))).toBe("stale");
    expect(await refusal(verifyWebhook({ secret, body, headers, now: (sentAt + 61) * 1000, toleranceS: 60 }))).toBe("stale");
  });

  it("refuses a delivery without its timestamp, delivery id or signature, and the old body-only signature", async () => {
    const headers = delivered();
    for (const name of ["x-sociallookup-timestamp", "x-sociallookup-delivery", "x-sociallookup-signature"] as const) {
      const { [name]: _dropped, ...rest } = headers;
      expect(await refusal(verifyWebhook({ secret, body, headers: rest }))).toBe("missing");
    }
    expect(await refusal(verifyWebhook({ secret, body, headers: { ...headers, "x-sociallookup-timestamp": "soon" } }))).toBe("missing");
    const bodyOnly = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    expect(await refusal(verifyWebhook({ secret, body, headers: { ...headers, "x-sociallookup-signature": bodyOnly } }))).toBe("signature");
  });
});

describe("startWebhookReceiver", () => {
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
  });

  const post = async (headers: Record<string, string>, payload = body) =>
    (await fetch(receiver?.url ?? "", { method: "POST", body: payload, headers: { "Content-Type": "application/json", ...headers } })).status;

  it("hands each delivery id on once: a retry or a replay within 5 minutes is dropped, a stale replay refused", async () => {
    receiver = await startWebhookReceiver({ secret });
    const first = delivered({ deliveryId: "7" });
    expect(await post(first)).toBe(204);
    // The server's retry: the same id, signed afresh a second later.
    expect(await post(delivered({ deliveryId: "7", timestamp: Number(first["x-sociallookup-timestamp"]) + 1 }))).toBe(204);
    // The captured first delivery, replayed as it was.
    expect(await post(first)).toBe(204);
    expect(receiver.events).toHaveLength(1);
    // Replayed after the 5 minutes (its timestamp is then too old): refused.
    expect(await post(delivered({ deliveryId: "8", timestamp: Math.floor(Date.now() / 1000) - 301 }))).toBe(401);
    // A captured delivery under another delivery id to get past the dedupe: the signature fails.
    expect(await post({ ...first, "x-sociallookup-delivery": "9" })).toBe(401);
    expect(receiver.refused).toBe(2);
    expect(await post(delivered({ deliveryId: "10" }))).toBe(204);
    expect(receiver.events).toHaveLength(2);
    await expect(receiver.batchFinished("b1")).resolves.toMatchObject({ batchId: "b1" });
  });
});
