import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { newKey, settleScript } from "@/tests/support/usage";
import { embeddedInRun, testDatabases } from "@/tests/support/databases";
import { keyDeliveries } from "./alerts";
import { DELIVERY_FAILED, signDelivery, startAlertWorker, verifyDelivery, webhookSecret, type AlertWorker, type WebhookPayload } from "./webhooks";

/**
 * A key crosses its low-credit threshold through the real settle path; the worker posts one
 * signed webhook to a local receiver, retries a receiver that is down with backoff, and
 * finally marks the delivery failed — while /v1's charges never wait for any of it.
 */
type Received = { headers: http.IncomingHttpHeaders; body: string };


const receiver = async (status: number) => {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.writeHead(status).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/credits`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Runs `work` with a receiver answering `status`, and closes the receiver whatever happens. */
const withReceiver = async (status: number, work: (hook: Awaited<ReturnType<typeof receiver>>) => Promise<void>): Promise<void> => {
  const hook = await receiver(status);
  try {
    await work(hook);
  } finally {
    await hook.close();
  }
};

/** A port nothing listens on. */
const closedPort = async (): Promise<number> => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

const until = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe.runIf(embeddedInRun)("webhook signatures", () => {
  const nowMs = 1_700_000_000_000;
  const signed = { timestamp: "1700000000", deliveryId: "42", body: '{"a":1}' };
  const signature = signDelivery("whsec_test", { timestamp: 1_700_000_000, deliveryId: "42", body: '{"a":1}' });

  it("are HMAC-SHA256 over timestamp.deliveryId.body, keyed with the secret string", () => {
    // Known answer, computed independently: printf '1700000000.42.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    expect(signature).toBe("sha256=e77f8655a2c6097497ab8c83e308d0a0c0a9630717c13fbf08876991c2f1e19a");
    expect(verifyDelivery("whsec_test", { ...signed, signature }, nowMs)).toBe(true);
    expect(verifyDelivery("whsec_test", { ...signed, signature: null }, nowMs)).toBe(false);
  });

  it("refuse a tampered body, delivery id or timestamp, and a timestamp more than 5 minutes off", () => {
    expect(verifyDelivery("whsec_test", { ...signed, body: '{"a":2}', signature }, nowMs)).toBe(false);
    expect(verifyDelivery("whsec_test", { ...signed, deliveryId: "43", signature }, nowMs)).toBe(false);
    expect(verifyDelivery("whsec_test", { ...signed, timestamp: "1700000001", signature }, nowMs)).toBe(false);
    expect(verifyDelivery("whsec_test", { ...signed, signature }, nowMs + 300_000)).toBe(true);
    expect(verifyDelivery("whsec_test", { ...signed, signature }, nowMs + 301_000)).toBe(false);
    expect(verifyDelivery("whsec_test", { ...signed, signature }, nowMs - 301_000)).toBe(false);
    // The old scheme, the body alone, no longer verifies.
    // printf '{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    const bodyOnly = "sha256=51426af50a41dd7ff2cd3f116594734766d4018d15d6fb07169aee5d2959adf5";
    expect(verifyDelivery("whsec_test", { ...signed, signature: bodyOnly }, nowMs)).toBe(false);
  });
});

describe.each(await testDatabases())("low-credit webhooks on $name", (database) => {
  let db: Db;
  let workers: AlertWorker[] = [];

  const spend = (keyId: string, times: number, costCredits = 2) =>
    settleScript(
      db,
      Array.from({ length: times }, () => ({ keyId, operation: "followers", costCredits, outcome: "found" as const, agoMs: 10, latencyMs: 1 })),
    );

  /** A key whose low-credit alerts (below `threshold`, or only at zero when null) go to `url`. */
  const keyAlertingTo = async (url: string, settings: { credits: number; threshold: number | null; name?: string }) => {
    const key = await newKey(db, null, settings.credits, settings.name);
    await db.query("UPDATE api_keys SET alert_threshold_credits = $3, alert_webhook_url = $2 WHERE id = $1", [key.id, url, settings.threshold]);
    return key;
  };

  // The receivers here listen on 127.0.0.1, which a self-hoster has to allow explicitly.
  const fast = { pollMs: 10, backoffMs: [20, 40, 80, 160], timeoutMs: 1000, policy: { allowPrivate: false, allowedCidrs: ["127.0.0.1/32"] } };

  beforeAll(async () => {
    db = await database.open();
  }, 120_000);

  afterEach(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    workers = [];
  });

  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });

  it("a key crossing its threshold gets exactly one delivery, with a valid signature", async () => {
    await withReceiver(204, async (hook) => {
      const key = await keyAlertingTo(hook.url, { credits: 10, threshold: 5, name: "nightly sync" });
      // 10 → 8 → 6 → 4 (crosses 5) → 2: one crossing, one alert.
      await spend(key.id, 4);
      workers.push(startAlertWorker(db, fast));
      await until(async () => (await keyDeliveries(db, key.id))[0]?.status === "delivered");
      // More polls change nothing: still one alert, one delivery, one request.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(hook.received).toHaveLength(1);
      const [request] = hook.received;
      const payload = JSON.parse(request?.body ?? "") as WebhookPayload;
      expect(payload).toEqual({
        event: "key.credits.low",
        keyId: key.id,
        keyName: "nightly sync",
        creditsRemaining: 4,
        threshold: 5,
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(request?.headers["content-type"]).toBe("application/json");
      expect(request?.headers["x-sociallookup-event"]).toBe("key.credits.low");
      const signature = request?.headers["x-sociallookup-signature"];
      expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      const timestamp = String(request?.headers["x-sociallookup-timestamp"]);
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
      const received = { timestamp, deliveryId: String(request?.headers["x-sociallookup-delivery"]), body: request?.body ?? "", signature: String(signature) };
      expect(verifyDelivery(webhookSecret(key.id), received)).toBe(true);
      expect(verifyDelivery(webhookSecret(key.id), { ...received, body: `${received.body} ` })).toBe(false);
      expect(verifyDelivery(webhookSecret("key_other"), received)).toBe(false);
      const [delivery] = await keyDeliveries(db, key.id);
      expect(delivery).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 204, payload: request?.body });
      expect(request?.headers["x-sociallookup-delivery"]).toBe(delivery?.id);
    });
  });

  it("sends key.credits.zero when a key reaches 0", async () => {
    await withReceiver(200, async (hook) => {
      const key = await keyAlertingTo(hook.url, { credits: 4, threshold: null, name: "draining" });
      await spend(key.id, 2);
      workers.push(startAlertWorker(db, fast));
      await until(async () => hook.received.length === 1);
      expect(JSON.parse(hook.received[0]?.body ?? "")).toMatchObject({ event: "key.credits.zero", creditsRemaining: 0, threshold: null });
    });
  });

  it("retries a receiver that answers 500, with backoff, until it accepts; each attempt signed afresh, one delivery id", async () => {
    let answers = [500, 503, 200];
    const received: number[] = [];
    const attempts: Received[] = [];
    // A minute passes between attempts on the worker's clock.
    let clockMs = 1_700_000_000_000;
    const now = () => (clockMs += 60_000);
    const server = http.createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => attempts.push({ headers: request.headers, body }));
      received.push(Date.now());
      const status = answers[0] ?? 200;
      answers = answers.slice(1);
      response.writeHead(status).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const key = await keyAlertingTo(`http://127.0.0.1:${port}/`, { credits: 10, threshold: 9 });
      await spend(key.id, 1);
      workers.push(startAlertWorker(db, { ...fast, now }));
      await until(async () => (await keyDeliveries(db, key.id))[0]?.status === "delivered");
      expect(received).toHaveLength(3);
      await until(async () => attempts.length === 3);
      const signedAt = attempts.map((attempt) => Number(attempt.headers["x-sociallookup-timestamp"]));
      expect(signedAt).toEqual([1_700_000_060, 1_700_000_120, 1_700_000_180]);
      expect(new Set(attempts.map((attempt) => attempt.headers["x-sociallookup-delivery"])).size).toBe(1);
      for (const [index, attempt] of attempts.entries()) {
        const signed = { timestamp: String(signedAt[index]), deliveryId: String(attempt.headers["x-sociallookup-delivery"]), body: attempt.body, signature: String(attempt.headers["x-sociallookup-signature"]) };
        expect(verifyDelivery(webhookSecret(key.id), signed, (signedAt[index] ?? 0) * 1000)).toBe(true);
        // A captured attempt replayed ten minutes later is stale.
        expect(verifyDelivery(webhookSecret(key.id), signed, ((signedAt[index] ?? 0) + 600) * 1000)).toBe(false);
      }
      // Waited at least the backoff between attempts (20 ms, then 40 ms).
      expect((received[1] ?? 0) - (received[0] ?? 0)).toBeGreaterThanOrEqual(15);
      expect((received[2] ?? 0) - (received[1] ?? 0)).toBeGreaterThanOrEqual(35);
      expect((await keyDeliveries(db, key.id))[0]).toMatchObject({ attempts: 3, lastStatus: 200, lastError: null });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("receiver down: retried up to 5 attempts, then marked failed — and /v1 charges never wait", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/down`;
    const key = await keyAlertingTo(url, { credits: 100, threshold: 99 });
    await spend(key.id, 1);
    workers.push(startAlertWorker(db, fast));
    // Requests keep settling at full speed while deliveries fail in the background.
    const started = performance.now();
    const settled = await spend(key.id, 10, 1);
    expect(settled.every((call) => call.status === 200)).toBe(true);
    expect(performance.now() - started).toBeLessThan(5000);
    await until(async () => (await keyDeliveries(db, key.id))[0]?.status === "failed");
    const [delivery] = await keyDeliveries(db, key.id);
    expect(delivery).toMatchObject({ status: "failed", attempts: 5, lastStatus: null, url });
    // The user's delivery log never says why the socket failed (that would map the server's networks).
    expect(delivery?.lastError).toBe(DELIVERY_FAILED);
    expect(await keyDeliveries(db, key.id)).toHaveLength(1);
  });

  it("sends nothing for a key without a webhook URL, nor for an alert older than a day", async () => {
    await withReceiver(200, async (hook) => {
      const quiet = await newKey(db, null, 10);
      await db.query("UPDATE api_keys SET alert_threshold_credits = 9 WHERE id = $1", [quiet.id]);
      await spend(quiet.id, 1);
      const late = await newKey(db, null, 10);
      await db.query("UPDATE api_keys SET alert_threshold_credits = 9 WHERE id = $1", [late.id]);
      await spend(late.id, 1);
      await db.query("UPDATE key_alerts SET created_at = now() - interval '2 days' WHERE key_id = $1", [late.id]);
      await db.query("UPDATE api_keys SET alert_webhook_url = $2 WHERE id = $1", [late.id, hook.url]);
      const worker = startAlertWorker(db, { ...fast, pollMs: 60_000 });
      workers.push(worker);
      await worker.tick();
      expect(await keyDeliveries(db, quiet.id)).toEqual([]);
      expect(await keyDeliveries(db, late.id)).toEqual([]);
      expect(hook.received).toEqual([]);
    });
  });

  it("two workers (two instances) still deliver an alert once", async () => {
    await withReceiver(200, async (hook) => {
      const key = await keyAlertingTo(hook.url, { credits: 10, threshold: 9 });
      await spend(key.id, 1);
      workers.push(startAlertWorker(db, fast), startAlertWorker(db, fast));
      await until(async () => (await keyDeliveries(db, key.id))[0]?.status === "delivered");
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(hook.received).toHaveLength(1);
    });
  });
});
