import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { verifyDelivery } from "@/lib/alerts/webhooks";
import type { BatchView } from "@/lib/batches/view";
import { demoFixtures } from "@/lib/demo/fixtures";
import { parseCsv } from "../support/csv";
import { consoleClient, type Session } from "./console-client";
import { delay, readKeyLedger, type ApiTarget } from "./harness";

/**
 * Batches for scripts under /v1 with an API key (docs/api.md "Batches: `/v1/batches`"), on the
 * production servers: creation (rejects, maxCostCredits, 400/401/402), a run with exact credits and
 * usage, another key's 404, the owner's console view, streamed NDJSON and CSV, pause/resume/cancel,
 * and a signed batch.finished webhook received by a local listener
 * (WEBHOOK_ALLOWED_NETWORKS=127.0.0.9/32).
 */
const targets = inject("apiTargets");

const host = demoFixtures.eventUrlHost;
const demoUrls = demoFixtures.eventIds.map((id) => `https://${host}/events/${id}/`);
const unknownUrls = Array.from({ length: 10 }, (_, index) => `https://${host}/events/${8_100_000_000_000_001 + index}/`);
const malformed = Array.from({ length: 10 }, (_, index) => `https://elsewhere.example/events/${index + 1}/`);
/** Event ids the store does not have: each lookup is a free 404, so a batch of many stays open for a while and costs nothing. */
const unknownIds = (count: number, from: number) => Array.from({ length: count }, (_, index) => String(8_200_000_000_000_000 + from + index));

type Envelope<T> = { code: number; message: string; data: T; requestId: string };
type Created = { id: string; status: string; total: number; rejected: { input: string; reason: string }[]; maxCostCredits: number; resultsUrl: string };
type View = BatchView & { resultsUrl: string };

type Received = { headers: http.IncomingHttpHeaders; body: string };

/** A webhook receiver on 127.0.0.9, the one network the suite's servers may deliver to. */
const startListener = async () => {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.9", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.9:${port}/hooks/batches`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

describe.each(targets.map((target) => [target.kind, target] as const))("/v1/batches on %s", (_kind, target: ApiTarget) => {
  const client = consoleClient(target);
  let analyst: Session;
  let key: { id: string; token: string };
  let otherKey: { id: string; token: string };
  let listener: Awaited<ReturnType<typeof startListener>>;

  /**
   * A /v1 call as a script makes it: control calls count towards the key's per-second limit,
   * which the batch's own lookups use too, so a 429 is waited out (Retry-After) and sent again.
   */
  const v1 = async <T>(token: string | null, method: string, path: string, body?: unknown, raw?: string) => {
    for (;;) {
      const response = await fetch(`${target.baseUrl}${path}`, {
        method,
        headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), "Content-Type": "application/json" },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await response.text();
      // Only the per-second limit says when to retry; a quota's 429 is the answer itself.
      if (response.status === 429 && response.headers.get("retry-after") !== null) {
        await delay(Number(response.headers.get("retry-after") ?? "1") * 1000);
        continue;
      }
      return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Envelope<T> };
    }
  };
  const waitFor = async (id: string, done: (view: View) => boolean, timeoutMs = 60_000, token = key.token): Promise<View> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await v1<View>(token, "GET", `/v1/batches/${id}`);
      expect(answer.status, answer.text).toBe(200);
      const view = answer.json().data;
      if (done(view)) return view;
      if (Date.now() > deadline) throw new Error(`batch ${id} did not get there in time: ${JSON.stringify(view)}`);
      await delay(500);
    }
  };

  beforeAll(async () => {
    const admin = await client.admin();
    analyst = await client.analyst(admin, "v1-batches", 5000);
    key = await client.consoleKey(analyst, 1000, 50);
    otherKey = await client.consoleKey(analyst, 100, 50);
    listener = await startListener();
  });
  afterAll(async () => {
    await listener?.close();
  });

  it("runs 40 found and 10 not found for exactly 160 credits, rejects bad lines at creation, streams NDJSON and CSV, and signs its batch.finished webhook", async () => {
    const created = await v1<Created>(key.token, "POST", "/v1/batches", {
      operation: "event_details",
      inputs: [...demoUrls, ...unknownUrls, ...malformed],
      webhookUrl: listener.url,
    });
    expect(created.status, created.text).toBe(202);
    const envelope = created.json();
    expect(envelope).toMatchObject({ code: 0, message: "success" });
    expect(created.headers.get("x-request-id")).toBe(envelope.requestId);
    const batch = envelope.data;
    expect(batch).toMatchObject({ total: 50, maxCostCredits: 200, status: "queued" });
    expect(batch.rejected.map((entry) => entry.input).sort()).toEqual([...malformed].sort());
    expect(new Set(batch.rejected.map((entry) => entry.reason))).toEqual(new Set(["not an event URL"]));

    const done = await waitFor(batch.id, (view) => view.status === "done");
    expect(done).toMatchObject({ total: 50, done: 50, succeeded: 40, notFound: 10, failed: 0, creditsSpent: 160, keyId: key.id });

    const ledger = await readKeyLedger(target, key.id);
    expect(ledger.usage.filter((row) => row.status === 200)).toHaveLength(40);
    expect(ledger.usage.filter((row) => row.status === 404)).toHaveLength(10);
    expect(ledger.usage.reduce((sum, row) => sum + row.credits_charged, 0)).toBe(160);
    expect(ledger.creditsRemaining).toBe(1000 - 160);

    const ndjson = await fetch(`${target.baseUrl}/v1/batches/${batch.id}/results?format=ndjson`, { headers: { Authorization: `Bearer ${key.token}` } });
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const lines = (await ndjson.text()).trim().split("\n").map((line) => JSON.parse(line) as { event: { event_id: string } });
    expect(lines.map((line) => line.event.event_id).sort()).toEqual([...demoFixtures.eventIds].sort());
    const csv = await fetch(`${target.baseUrl}/v1/batches/${batch.id}/results?format=csv`, { headers: { Authorization: `Bearer ${key.token}` } });
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = parseCsv(await csv.text());
    expect(rows.slice(1)).toHaveLength(50);
    expect(rows.slice(1).filter((row) => row[2] === "404").map((row) => row[4])).toEqual(Array(10).fill("Event not found"));

    // The webhook: one signed batch.finished event with the final counts.
    const deadline = Date.now() + 30_000;
    while (listener.received.length === 0 && Date.now() < deadline) await delay(200);
    const delivery = listener.received.find((entry) => entry.body.includes(batch.id));
    expect(delivery, "a batch.finished delivery").toBeDefined();
    if (!delivery) return;
    expect(delivery.headers["x-sociallookup-event"]).toBe("batch.finished");
    const alerts = await client.api(analyst, "GET", `/api/keys/${key.id}/alerts`);
    const secret = (alerts.body as { signingSecret: string }).signingSecret;
    // Signed over timestamp.deliveryId.body: the timestamp is this attempt's, the id the delivery's.
    const timestamp = String(delivery.headers["x-sociallookup-timestamp"]);
    expect(timestamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
    const deliveryId = String(delivery.headers["x-sociallookup-delivery"]);
    expect(deliveryId).toMatch(/^\d+$/);
    const signed = { timestamp, deliveryId, body: delivery.body, signature: String(delivery.headers["x-sociallookup-signature"]) };
    expect(verifyDelivery(secret, signed)).toBe(true);
    expect(verifyDelivery(secret, { ...signed, body: `${delivery.body} ` })).toBe(false);
    expect(verifyDelivery(secret, { ...signed, deliveryId: `${deliveryId}0` })).toBe(false);
    expect(verifyDelivery(secret, { ...signed, timestamp: String(Number(timestamp) + 1) })).toBe(false);
    // Replayed later than five minutes on, the same delivery is refused.
    expect(verifyDelivery(secret, signed, (Number(timestamp) + 301) * 1000)).toBe(false);
    expect(JSON.parse(delivery.body)).toMatchObject({
      event: "batch.finished",
      batchId: batch.id,
      status: "done",
      total: 50,
      succeeded: 40,
      notFound: 10,
      failed: 0,
      creditsSpent: 160,
      keyId: key.id,
      resultsUrl: `${target.publicUrl}/v1/batches/${batch.id}/results`,
    });
    const shown = await waitFor(batch.id, (view) => view.webhook?.status === "delivered", 10_000);
    expect(shown.webhook).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 204 });

    // The owner sees it in the console; the key lists it, newest first.
    const consoleView = await client.api(analyst, "GET", `/api/batches/${batch.id}`);
    expect(consoleView.status).toBe(200);
    expect(consoleView.body).toMatchObject({ id: batch.id, status: "done", creditsSpent: 160, keyId: key.id, webhook: { status: "delivered" } });
    const list = await v1<{ batches: View[] }>(key.token, "GET", "/v1/batches?limit=1");
    expect(list.status).toBe(200);
    expect(list.json().data.batches.map((entry) => entry.id)).toEqual([batch.id]);
  });

  it("answers another key 404 for the batch and leaves it out of that key's list", async () => {
    const created = await v1<Created>(key.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: [demoFixtures.eventIds[0]] });
    expect(created.status, created.text).toBe(202);
    const id = created.json().data.id;
    for (const path of [`/v1/batches/${id}`, `/v1/batches/${id}/results?format=csv`]) {
      const answer = await v1(otherKey.token, "GET", path);
      expect(answer.status).toBe(404);
      expect(answer.json()).toMatchObject({ code: 404, message: "Batch not found", data: null });
    }
    expect((await v1(otherKey.token, "POST", `/v1/batches/${id}/cancel`)).status).toBe(404);
    const list = await v1<{ batches: View[] }>(otherKey.token, "GET", "/v1/batches");
    expect(list.json().data.batches.map((entry) => entry.id)).not.toContain(id);
  });

  it("answers 401 without a good key, 400 with what is wrong, 402 when the key cannot pay one lookup", async () => {
    const body = { operation: "event_details", inputs: demoUrls.slice(0, 2) };
    expect((await v1(null, "POST", "/v1/batches", body)).json()).toMatchObject({ code: 401, message: "apiKey is null" });
    expect((await v1("not-a-key", "GET", "/v1/batches")).json()).toMatchObject({ code: 401, message: "apiKey is invalid" });

    const bad = async (payload: unknown, message: string | RegExp, raw?: string) => {
      const answer = await v1(key.token, "POST", "/v1/batches", payload, raw);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.json().message).toMatch(message);
    };
    await bad(undefined, /^Invalid parameter: body/, "{not json");
    await bad({ operation: "event_details" }, "Missing required parameter: inputs");
    await bad({ operation: "no_such_operation", inputs: ["1"] }, /^Invalid parameter: operation/);
    await bad({ operation: "event_details", inputs: malformed }, /^Invalid parameter: inputs \(None of the inputs/);
    await bad({ ...body, options: { maxAgeS: -1 } }, /^Invalid parameter: options\.maxAgeS/);
    await bad({ ...body, webhookUrl: "http://10.0.0.1/hook" }, /^Invalid parameter: webhookUrl/);
    await bad({ ...body, colour: "blue" }, /^Invalid parameter: colour/);
    // A value of the wrong type is invalid, not missing.
    await bad({ ...body, maxCredits: 1.5 }, "Invalid parameter: maxCredits (maxCredits must be a whole number of credits)");
    await bad({ ...body, maxCredits: "10" }, "Invalid parameter: maxCredits (maxCredits must be a whole number of credits)");
    await bad({ ...body, maxCredits: 1e30 }, "Invalid parameter: maxCredits (maxCredits must be a whole number of credits)");
    await bad({ operation: "event_details", inputs: "x" }, "Invalid parameter: inputs (inputs must be an array of strings)");
    expect((await v1(key.token, "GET", "/v1/batches?limit=0")).status).toBe(400);

    const poor = await client.consoleKey(analyst, 3, 50);
    const refused = await v1(poor.token, "POST", "/v1/batches", body);
    expect(refused.status).toBe(402);
    expect(refused.json()).toMatchObject({ code: 402, message: "apiKey quota is not enough" });
    expect((await v1(key.token, "DELETE", "/v1/batches")).status).toBe(405);
  });

  it("runs batches for a key of no user made with `keys create`, as the README shows: end to end, its own and nobody else's", async () => {
    const own = target.keys.batchOwnerless;
    const created = await v1<Created>(own.token, "POST", "/v1/batches", { operation: "event_details", inputs: demoUrls.slice(0, 3), webhookUrl: listener.url });
    expect(created.status, created.text).toBe(202);
    const id = created.json().data.id;
    const done = await waitFor(id, (view) => view.status === "done", 60_000, own.token);
    expect(done).toMatchObject({ total: 3, succeeded: 3, creditsSpent: 12, keyId: own.id, ownerId: null });
    const ndjson = await fetch(`${target.baseUrl}/v1/batches/${id}/results`, { headers: { Authorization: `Bearer ${own.token}` } });
    expect(ndjson.status).toBe(200);
    expect((await ndjson.text()).trim().split("\n")).toHaveLength(3);
    const listed = await v1<{ batches: View[] }>(own.token, "GET", "/v1/batches");
    expect(listed.json().data.batches.map((entry) => entry.id)).toContain(id);

    // Its batch.finished event goes to its webhookUrl, signed with the key's secret.
    const deadline = Date.now() + 30_000;
    while (!listener.received.some((entry) => entry.body.includes(id)) && Date.now() < deadline) await delay(200);
    const delivery = listener.received.find((entry) => entry.body.includes(id));
    expect(delivery, "a batch.finished delivery").toBeDefined();
    expect(JSON.parse(delivery?.body ?? "{}")).toMatchObject({ event: "batch.finished", batchId: id, status: "done", keyId: own.id, creditsSpent: 12 });

    // Nobody else's: another key and an analyst do not find it; an administrator sees it among everyone's.
    expect((await v1(key.token, "GET", `/v1/batches/${id}`)).status).toBe(404);
    expect((await client.api(analyst, "GET", `/api/batches/${id}`)).status).toBe(404);
    const mine = await client.api(analyst, "GET", "/api/batches");
    expect((mine.body as { batches: BatchView[] }).batches.map((entry) => entry.id)).not.toContain(id);
    const admin = await client.admin();
    const everyone = await client.api(admin, "GET", "/api/batches?scope=all");
    expect((everyone.body as { batches: BatchView[] }).batches.find((entry) => entry.id === id)).toMatchObject({ ownerId: null, keyId: own.id });

    // Pause, resume and cancel (unknown ids: free 404s, many enough that it is still running).
    const long = await v1<Created>(own.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: unknownIds(300, 0) });
    expect(long.status, long.text).toBe(202);
    const act = (action: string) => v1<View>(own.token, "POST", `/v1/batches/${long.json().data.id}/${action}`);
    expect((await act("pause")).json().data.status).toBe("paused");
    expect((await act("resume")).json().data.status).toBe("queued");
    expect((await act("cancel")).json().data.status).toBe("canceled");
  });

  it("answers 429 with the quota's sentence once a key of no user has 10 batches open, counting that key's alone, and has room again after a cancel", async () => {
    const own = target.keys.batchOwnerless;
    const open: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      const created = await v1<Created>(own.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: unknownIds(300, 1000 * (index + 1)) });
      expect(created.status, created.text).toBe(202);
      open.push(created.json().data.id);
    }
    try {
      const refused = await v1(own.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: unknownIds(1, 0) });
      expect(refused.status, refused.text).toBe(429);
      expect(refused.json()).toMatchObject({
        code: 429,
        message:
          "This key has 10 batches queued or running, the most one key without an owner may have (10). Wait for one to finish, or cancel one to make room.",
        data: null,
      });
      expect(refused.headers.get("retry-after")).toBeNull();
      // A user's key counts its owner's batches, not this key's.
      const elsewhere = await v1<Created>(key.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: unknownIds(1, 0) });
      expect(elsewhere.status, elsewhere.text).toBe(202);
      await v1(key.token, "POST", `/v1/batches/${elsewhere.json().data.id}/cancel`);

      const first = open.shift() ?? "";
      expect((await v1(own.token, "POST", `/v1/batches/${first}/cancel`)).status).toBe(200);
      const again = await v1<Created>(own.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: unknownIds(1, 0) });
      expect(again.status, again.text).toBe(202);
      open.push(again.json().data.id);
    } finally {
      for (const id of open) await v1(own.token, "POST", `/v1/batches/${id}/cancel`);
    }
  });

  it("answers 403 with the contract's scope message, on /v1 and in the console, when the paying key may not call the batch's operation", async () => {
    const scopedAnalyst = await client.analyst(await client.admin(), "v1-batches-scoped", 1000);
    const scoped = await client.consoleKey(scopedAnalyst, 100, 50);
    const limited = await client.api(scopedAnalyst, "PATCH", `/api/keys/${scoped.id}`, { operations: ["followers"] });
    expect(limited.status, limited.text).toBe(200);
    const body = { operation: "event_details", inputs: demoUrls.slice(0, 2) };
    const refused = await v1(scoped.token, "POST", "/v1/batches", body);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json()).toMatchObject({ code: 403, message: "apiKey is not allowed to call this operation", data: null });
    const fromConsole = await client.api(scopedAnalyst, "POST", "/api/batches", { ...body, maxCredits: 8 });
    expect(fromConsole.status, fromConsole.text).toBe(403);
    expect(fromConsole.text).toContain("may not call event_details: it is limited to followers");
    const listed = await client.api(scopedAnalyst, "GET", "/api/batches");
    expect((listed.body as { batches: unknown[] }).batches).toEqual([]);
    // The operation it may call still runs.
    const allowed = await v1<Created>(scoped.token, "POST", "/v1/batches", { operation: "followers", inputs: ["2000000001"] });
    expect(allowed.status, allowed.text).toBe(202);
  });

  it("refuses a webhookUrl that is not http or https at creation, with 400 and a readable message, and logs no error for it", async () => {
    const logBefore = fs.readFileSync(target.logFile, "utf8").length;
    for (const webhookUrl of ["javascript:alert(document.domain)", "JavaScript://example.com/%0Aalert(1)", "data:text/plain,hello", "ftp://example.com/hook"]) {
      const answer = await v1(key.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: [demoFixtures.eventIds[0]], webhookUrl });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.json().message).toBe("Invalid parameter: webhookUrl (The webhook URL must be an http or https URL.)");
    }
    // An empty URL is no URL: refused, never stored for a delivery that could only fail.
    const empty = await v1(key.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: [demoFixtures.eventIds[0]], webhookUrl: "" });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.json().message).toBe("Invalid parameter: webhookUrl (The webhook URL is not a valid URL.)");
    await delay(500);
    const logged = fs.readFileSync(target.logFile, "utf8").slice(logBefore);
    expect(logged).not.toMatch(/"level":"error"|\n\s+at |javascript:/i);
  });

  it("pauses, resumes and cancels; a canceled batch cannot be resumed", async () => {
    const slow = await client.consoleKey(analyst, 1000, 2);
    const created = await v1<Created>(slow.token, "POST", "/v1/batches", { operation: "event_details", inputs: demoUrls.slice(0, 12), maxCredits: 40 });
    expect(created.status, created.text).toBe(202);
    const id = created.json().data.id;
    const act = (action: string) => v1<View>(slow.token, "POST", `/v1/batches/${id}/${action}`);
    const paused = await act("pause");
    expect(paused.status, paused.text).toBe(200);
    expect(paused.json().data.status).toBe("paused");
    expect((await act("resume")).json().data.status).toBe("queued");
    const canceled = await act("cancel");
    expect(canceled.json().data.status).toBe("canceled");
    const again = await act("resume");
    expect(again.status).toBe(409);
    expect(again.json().code).toBe(409);
    await delay(1500);
    const final = (await v1<View>(slow.token, "GET", `/v1/batches/${id}`)).json().data;
    expect(final.creditsSpent).toBeLessThanOrEqual(40);
    const ledger = await readKeyLedger(target, slow.id);
    expect(ledger.usage.reduce((sum, row) => sum + row.credits_charged, 0)).toBe(final.creditsSpent);
  });
});
