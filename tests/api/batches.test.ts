import { beforeAll, describe, expect, inject, it } from "vitest";
import type { BatchView } from "@/lib/batches/view";
import { demoFixtures } from "@/lib/demo/fixtures";
import { consoleClient, type Session } from "./console-client";
import { delay, readKeyLedger, startServer, stopServer, killServerNow, type ApiTarget } from "./harness";
import { parseCsv } from "../support/csv";

/**
 * Batch lookups through the console API on the production servers: a batch runs server-side
 * through the /v1 pipeline with the analyst's console key, stops at its cap, pauses, resumes,
 * cancels, survives a killed server without charging twice, and is nobody else's business.
 */
const targets = inject("apiTargets");

type Created = { id: string; status: string; total: number; rejected: { input: string; reason: string }[]; maxCostCredits: number };

const host = demoFixtures.eventUrlHost;
const demoUrls = demoFixtures.eventIds.map((id) => `https://${host}/events/${id}/`);
const unknownUrls = Array.from({ length: 10 }, (_, index) => `https://${host}/events/${9_000_000_000_000_001 + index}/`);
const malformed = [
  "https://elsewhere.example/events/1000000000000001/",
  "http://events.demo.test/events/1000000000000001/",
  "https://events.demo.test/event/1000000000000001/",
  "https://events.demo.test/events/abc/",
  "events.demo.test/events/1000000000000001/",
  "not a url",
  "https://events.demo.test/",
  "ftp://events.demo.test/events/1/",
  "https://user:pw@events.demo.test/events/1000000000000002/",
  "https://events.demo.test/events/1000000000000001/extra/",
];

describe.each(targets.map((target) => [target.kind, target] as const))("batches on %s", (_kind, target: ApiTarget) => {
  const client = consoleClient(target);
  let admin: Session;

  const create = async (session: Session, body: unknown) => client.api(session, "POST", "/api/batches", body);
  const view = async (session: Session, id: string): Promise<BatchView> => {
    const answer = await client.api(session, "GET", `/api/batches/${id}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body as BatchView;
  };
  const waitFor = async (session: Session, id: string, done: (batch: BatchView) => boolean, timeoutMs = 60_000): Promise<BatchView> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const batch = await view(session, id);
      if (done(batch)) return batch;
      if (Date.now() > deadline) throw new Error(`batch ${id} did not get there in time: ${JSON.stringify(batch)}`);
      await delay(200);
    }
  };
  const eventBatch = async (session: Session, inputs: string[], maxCredits: number): Promise<Created> => {
    const answer = await create(session, { operation: "event_details", inputs, maxCredits });
    expect(answer.status, answer.text).toBe(201);
    return answer.body as Created;
  };

  /** A new analyst whose console key has `key.credits` at `key.qpsLimit`/s, with an event batch of `inputs` created. */
  const analystBatch = async (label: string, key: { credits: number; qpsLimit: number }, inputs: string[], maxCredits: number) => {
    const analyst = await client.analyst(admin, label, 1000);
    const consoleKey = await client.consoleKey(analyst, key.credits, key.qpsLimit);
    return { analyst, key: consoleKey, created: await eventBatch(analyst, inputs, maxCredits) };
  };
  const act = (session: Session, id: string, action: "pause" | "resume" | "cancel", body: unknown = {}) =>
    client.api(session, "POST", `/api/batches/${id}/${action}`, body);

  /** A 20-input batch on a 4/s key, and `action` sent to it (answering 200) once `doneAtLeast` inputs are done. */
  const actMidway = async (label: string, action: "pause" | "cancel", doneAtLeast: number) => {
    const started = await analystBatch(label, { credits: 500, qpsLimit: 4 }, demoUrls.slice(0, 20), 1000);
    await waitFor(started.analyst, started.created.id, (batch) => batch.done >= doneAtLeast);
    const answer = await act(started.analyst, started.created.id, action);
    expect(answer.status, answer.text).toBe(200);
    return { ...started, answer };
  };

  beforeAll(async () => {
    admin = await client.admin();
  });

  it("runs 60 event inputs: 10 rejected at creation, 40 found and 10 not found, exactly 160 credits, one usage record per lookup", async () => {
    const inputs = [...demoUrls, ...unknownUrls, ...malformed];
    const { analyst, key, created } = await analystBatch("batch-main", { credits: 500, qpsLimit: 100 }, inputs, 10_000);
    expect(created.total).toBe(50);
    expect(created.maxCostCredits).toBe(200);
    expect(created.rejected).toHaveLength(10);
    expect(created.rejected.map((entry) => entry.input).sort()).toEqual([...malformed].sort());
    expect(new Set(created.rejected.map((entry) => entry.reason))).toEqual(new Set(["not an event URL"]));

    const finished = await waitFor(analyst, created.id, (batch) => batch.status === "done");
    expect(finished).toMatchObject({ total: 50, done: 50, succeeded: 40, notFound: 10, failed: 0, creditsSpent: 160, maxCredits: 200 });
    expect(finished.startedAt).not.toBeNull();
    expect(finished.finishedAt).not.toBeNull();
    expect(await client.creditsOf(analyst, key.id)).toBe(340);

    const items = await client.api(analyst, "GET", `/api/batches/${created.id}/items?limit=500`);
    const statuses = (items.body as { items: { httpStatus: number }[] }).items.map((item) => item.httpStatus);
    expect(statuses.filter((status) => status === 200)).toHaveLength(40);
    expect(statuses.filter((status) => status === 404)).toHaveLength(10);

    const csv = await client.api(analyst, "GET", `/api/batches/${created.id}/results?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = parseCsv(csv.text);
    const header = rows[0] ?? [];
    expect(header.slice(0, 6)).toEqual(["input", "page", "status", "credits", "message", "event_id"]);
    const records = rows.slice(1);
    expect(records).toHaveLength(50);
    const eventIdColumn = header.indexOf("event_id");
    expect(records.filter((row) => row[2] === "200").map((row) => row[eventIdColumn]).sort()).toEqual([...demoFixtures.eventIds].sort());
    expect(records.filter((row) => row[2] === "404").map((row) => row[4])).toEqual(Array(10).fill("Event not found"));

    // Only the console's download link (bom=1) starts the CSV with a UTF-8 byte-order mark; scripts get plain text.
    const firstBytes = async (search: string) => {
      const response = await fetch(`${target.baseUrl}/api/batches/${created.id}/results?${search}`, { headers: { Cookie: analyst.cookie } });
      return [...new Uint8Array(await response.arrayBuffer()).subarray(0, 3)];
    };
    expect(await firstBytes("format=csv&bom=1")).toEqual([0xef, 0xbb, 0xbf]);
    expect(await firstBytes("format=csv")).toEqual([...Buffer.from("inp")]);

    const ndjson = await client.api(analyst, "GET", `/api/batches/${created.id}/results?format=ndjson`);
    const lines = ndjson.text.trim().split("\n").map((line) => JSON.parse(line) as { event: { event_id: string } });
    expect(lines.map((line) => line.event.event_id).sort()).toEqual([...demoFixtures.eventIds].sort());

    const ledger = await readKeyLedger(target, key.id);
    expect(ledger.creditsRemaining).toBe(340);
    expect(ledger.usage.filter((row) => row.status === 200)).toHaveLength(40);
    expect(ledger.usage.filter((row) => row.status === 404)).toHaveLength(10);
    expect(ledger.usage).toHaveLength(50);
    expect(ledger.usage.reduce((sum, row) => sum + row.credits_charged, 0)).toBe(160);
  });

  it("stops at exactly the cap, and finishes after a resume with a higher cap", async () => {
    const { analyst, key, created } = await analystBatch("batch-cap", { credits: 500, qpsLimit: 100 }, demoUrls.slice(0, 10), 22);
    const stopped = await waitFor(analyst, created.id, (batch) => batch.status === "stopped");
    expect(stopped).toMatchObject({ done: 5, succeeded: 5, creditsSpent: 20, maxCredits: 22, stopReason: "cap" });
    expect(await client.creditsOf(analyst, key.id)).toBe(480);

    const resumed = await act(analyst, created.id, "resume", { maxCredits: 40 });
    expect(resumed.status, resumed.text).toBe(200);
    const done = await waitFor(analyst, created.id, (batch) => batch.status === "done");
    expect(done).toMatchObject({ done: 10, succeeded: 10, creditsSpent: 40 });
    expect(await client.creditsOf(analyst, key.id)).toBe(460);
  });

  it("stops when the key runs out (402) and resumes after a top-up", async () => {
    const { analyst, key, created } = await analystBatch("batch-topup", { credits: 12, qpsLimit: 100 }, demoUrls.slice(0, 5), 1000);
    const stopped = await waitFor(analyst, created.id, (batch) => batch.status === "stopped");
    expect(stopped).toMatchObject({ done: 3, creditsSpent: 12, stopReason: "credits" });
    const topUp = await client.api(admin, "POST", `/api/keys/${key.id}/credits`, { credits: 8, reason: "batch test top-up" });
    expect(topUp.status, topUp.text).toBeLessThan(300);
    expect((await act(analyst, created.id, "resume")).status).toBe(200);
    const done = await waitFor(analyst, created.id, (batch) => batch.status === "done");
    expect(done).toMatchObject({ done: 5, succeeded: 5, creditsSpent: 20 });
    expect(await client.creditsOf(analyst, key.id)).toBe(0);
  });

  it("pauses and resumes: nothing moves while paused", async () => {
    const { analyst, key, created, answer: paused } = await actMidway("batch-pause", "pause", 2);
    expect((paused.body as BatchView).status).toBe("paused");
    await delay(1500);
    const still = await view(analyst, created.id);
    await delay(1500);
    const later = await view(analyst, created.id);
    expect(later.status).toBe("paused");
    expect(later.done).toBe(still.done);
    expect(later.creditsSpent).toBe(later.done * 4);
    expect(later.done).toBeLessThan(20);
    expect((await act(analyst, created.id, "resume")).status).toBe(200);
    const done = await waitFor(analyst, created.id, (batch) => batch.status === "done");
    expect(done).toMatchObject({ done: 20, succeeded: 20, creditsSpent: 80 });
    expect(await client.creditsOf(analyst, key.id)).toBe(420);
  });

  it("cancels: the batch ends and charges nothing more", async () => {
    const { analyst, key, created } = await actMidway("batch-cancel", "cancel", 1);
    await delay(2000);
    const after = await view(analyst, created.id);
    expect(after.status).toBe("canceled");
    expect(after.done).toBeLessThan(20);
    expect(await client.creditsOf(analyst, key.id)).toBe(500 - after.creditsSpent);
    await delay(1000);
    expect((await view(analyst, created.id)).creditsSpent).toBe(after.creditsSpent);
    expect((await act(analyst, created.id, "resume")).status).toBe(409);
  });

  it("keeps another analyst's batch hidden (404), shows it to an admin, refuses a key that cannot pay (402)", async () => {
    const owner = await client.analyst(admin, "batch-owner", 1000);
    await client.consoleKey(owner, 100, 100);
    const other = await client.analyst(admin, "batch-other", 1000);
    const created = await eventBatch(owner, demoUrls.slice(0, 2), 1000);
    for (const [method, path] of [
      ["GET", `/api/batches/${created.id}`],
      ["GET", `/api/batches/${created.id}/results?format=csv`],
      ["GET", `/api/batches/${created.id}/items`],
      ["POST", `/api/batches/${created.id}/pause`],
      ["POST", `/api/batches/${created.id}/cancel`],
    ] as const) {
      const answer = await client.api(other, method, path, method === "POST" ? {} : undefined);
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    const list = await client.api(other, "GET", "/api/batches");
    expect((list.body as { batches: BatchView[] }).batches.map((batch) => batch.id)).not.toContain(created.id);
    expect((await client.api(admin, "GET", `/api/batches/${created.id}`)).status).toBe(200);
    await waitFor(owner, created.id, (batch) => batch.status === "done");

    await client.consoleKey(other, 3, 100);
    const refused = await create(other, { operation: "event_details", inputs: demoUrls.slice(0, 2), maxCredits: 100 });
    expect(refused.status, refused.text).toBe(402);
    expect((refused.body as { error: { code: string } }).error.code).toBe("key_cannot_pay");
    const bad = await create(other, { operation: "no_such_operation", inputs: ["1"], maxCredits: 100 });
    expect(bad.status).toBe(400);
    const nothing = await create(other, { operation: "event_details", inputs: malformed, maxCredits: 100 });
    expect(nothing.status).toBe(400);
    expect((await create(other, { operation: "event_details", inputs: "x", maxCredits: 100 })).status).toBe(400);
  });

  it("survives a killed server mid-batch: it finishes after the restart and no input is charged twice", async () => {
    const { analyst, key, created } = await analystBatch("batch-restart", { credits: 500, qpsLimit: 5 }, demoUrls, 1000);
    await waitFor(analyst, created.id, (batch) => batch.done >= 5);
    killServerNow(target);
    await stopServer(target);
    await startServer(target, "next-start");
    admin = await client.admin();
    // Sessions are signed tokens: the analyst's survives the restart.
    const done = await waitFor(analyst, created.id, (batch) => batch.status === "done", 120_000);
    expect(done).toMatchObject({ done: 40, succeeded: 40, failed: 0, creditsSpent: 160 });
    const ledger = await readKeyLedger(target, key.id);
    const charged = ledger.usage.filter((row) => row.status === 200);
    expect(charged).toHaveLength(40);
    expect(new Set(charged.map((row) => row.request_id)).size).toBe(40);
    expect(ledger.creditsRemaining).toBe(340);
    // A restart under load, then a page left in flight is judged only once its lookup must have ended.
  }, 180_000);
});
