import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { signalGroup } from "@/lib/cli/processes";
import type { BatchView } from "@/lib/batches/view";
import { demoFixtures } from "@/lib/demo/fixtures";
import { EXPORT_RETRY_AFTER_S } from "@/lib/export/gate";
import { consoleClient, type Session } from "./console-client";
import { delay, serverPid, startServer, stopServer, withServerStopped, type ApiTarget } from "./harness";
import { call } from "./http";

/**
 * No request stalls another (docs/decisions.md "Isolation"): the embedded database answers on its
 * own thread, so another key's /v1/account keeps answering while usage exports stream; at most
 * EXPORT_CONCURRENCY (2 on the test servers) exports stream at once, the next waits its turn or
 * gets 429 with Retry-After; a server killed with -9 during exports and a batch leaves a data
 * folder the next start opens (its stale lock taken over), and SIGTERM removes the lock. Timings
 * are the bench's (npm run bench:isolation), not asserted here.
 */
const targets = inject("apiTargets");

/** As many rows as `npm run bench:isolation` exports: each export streams for a while, under its gate. */
const EXPORT_ROWS = 25_000;
const EXPORT_PATH = "/api/usage/export?kind=events";

/** Usage rows written straight into the database (with the server stopped, as the embedded one requires). */
const seedUsage = (target: ApiTarget, keyId: string, rows: number) =>
  withServerStopped(target, async () => {
    const { openDb } = await import("@/lib/database");
    const db = await openDb({ dataDir: target.dataDir, databaseUrl: target.databaseUrl ?? undefined, timeoutMs: 60_000 });
    try {
      await db.query(
        `INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at)
         SELECT gen_random_uuid(), $1, 'followers', 200, 2, 4, 'userid=' || g, now() - make_interval(secs => g)
         FROM generate_series(1, $2::integer) AS g`,
        [keyId, rows],
      );
    } finally {
      await db.close();
    }
  });

const lockFile = (target: ApiTarget) => path.join(target.dataDir, "pglite.lock");
const lockHolder = (target: ApiTarget): number | null => {
  try {
    return Number.parseInt(fs.readFileSync(lockFile(target), "utf8"), 10);
  } catch {
    return null;
  }
};
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.each(targets)("$kind server: no request stalls another", (target: ApiTarget) => {
  const client = consoleClient(target);
  let exporter: Session;
  let other: { authorization: string };
  let otherKeyId: string;

  /** An export request whose body is left for the caller to read (or not). */
  const openExport = (signal?: AbortSignal) =>
    fetch(`${target.baseUrl}${EXPORT_PATH}`, { headers: { Cookie: exporter.cookie }, signal });
  const csvRows = async (response: Response): Promise<number> => {
    expect(response.status).toBe(200);
    const text = await response.text();
    return text.split("\r\n").filter((line) => line !== "").length - 1;
  };
  const account = async () => {
    const answer = await call(target, "/v1/account", { auth: other });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as { data: { key: { id: string; credits_remaining: number } } };
    expect(body.data.key).toMatchObject({ id: otherKeyId, credits_remaining: 5000 });
  };

  beforeAll(async () => {
    const admin = await client.admin();
    exporter = await client.analyst(admin, "exporter", 1_000_000);
    const exporterKey = await client.consoleKey(exporter, 1000, 100);
    const otherAnalyst = await client.analyst(admin, "bystander", 1_000_000);
    const otherKey = await client.consoleKey(otherAnalyst, 5000, 1000);
    other = { authorization: `Bearer ${otherKey.token}` };
    otherKeyId = otherKey.id;
    await seedUsage(target, exporterKey.id, EXPORT_ROWS);
  }, 240_000);

  it("answers another key's /v1/account while two exports (EXPORT_CONCURRENCY) are read", async () => {
    const exports = Promise.all(Array.from({ length: 2 }, async () => csvRows(await openExport())));
    let finished = false;
    void exports.then(
      () => (finished = true),
      () => (finished = true),
    );
    let answered = 0;
    while (!finished) {
      await account();
      answered += 1;
    }
    expect(await exports).toEqual([EXPORT_ROWS, EXPORT_ROWS]);
    expect(answered).toBeGreaterThan(0);
  }, 120_000);

  it("eight exports at once: each streams whole in its turn or is refused with 429 and Retry-After, never half", async () => {
    // Whether a refusal happens depends on how much of an unread export the sockets' buffers take
    // (the gate's own order and limits are unit-tested in lib/export/gate.test.ts); what must hold
    // over HTTP is that every answer is a whole export or a well-formed 429.
    const answers = await Promise.all(Array.from({ length: 8 }, () => openExport()));
    let whole = 0;
    for (const answer of answers) {
      if (answer.status === 429) {
        expect(answer.headers.get("retry-after")).toBe(String(EXPORT_RETRY_AFTER_S));
        const body = (await answer.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("exports_busy");
        expect(body.error.message).toMatch(/Try again in \d+ seconds/);
      } else {
        expect(await csvRows(answer)).toBe(EXPORT_ROWS);
        whole += 1;
      }
    }
    expect(whole).toBeGreaterThanOrEqual(2);
    await account();
    // The slots are free again afterwards.
    expect(await Promise.all([openExport(), openExport()].map(async (response) => csvRows(await response)))).toEqual([EXPORT_ROWS, EXPORT_ROWS]);
  }, 120_000);

  it("restarts after kill -9 during eight exports and a batch: data intact, the batch finishes, the lock taken over", async () => {
    const host = demoFixtures.eventUrlHost;
    const inputs = demoFixtures.eventIds.map((id) => `https://${host}/events/${id}/`);
    const batchOwner = await client.analyst(await client.admin(), "kill-batch", 1000);
    await client.consoleKey(batchOwner, 500, 5);
    const created = await client.api(batchOwner, "POST", "/api/batches", { operation: "event_details", inputs, maxCredits: 1000 });
    expect(created.status, created.text).toBe(201);
    const batchId = (created.body as { id: string }).id;
    const batch = async () => (await client.api(batchOwner, "GET", `/api/batches/${batchId}`)).body as BatchView;
    while ((await batch()).done < 3) await delay(200);

    const inFlight = Array.from({ length: 8 }, () => openExport().then((response) => response.text()).catch(() => null));
    await delay(300);
    const before = lockHolder(target);
    const pid = serverPid(target);
    expect(pid).not.toBeNull();
    if (pid !== null) signalGroup(pid, "SIGKILL");
    await Promise.all(inFlight);
    await stopServer(target);
    if (target.kind === "pglite") {
      // kill -9 runs no exit handler: the lock of a dead process is left for the next start to take over.
      expect(before).not.toBeNull();
      expect(lockHolder(target)).toBe(before);
      expect(alive(before ?? 0)).toBe(false);
    }

    await startServer(target, "next-start");
    if (target.kind === "pglite") {
      const holder = lockHolder(target);
      expect(holder).not.toBe(before);
      expect(alive(holder ?? 0)).toBe(true);
    }
    await account();
    expect(await csvRows(await openExport())).toBe(EXPORT_ROWS);
    const deadline = Date.now() + 120_000;
    let view = await batch();
    while (view.status !== "done" && Date.now() < deadline) {
      await delay(300);
      view = await batch();
    }
    expect(view).toMatchObject({ status: "done", done: inputs.length, succeeded: inputs.length, failed: 0 });

    // A clean stop (SIGTERM) closes the database and removes the lock.
    await stopServer(target);
    if (target.kind === "pglite") expect(fs.existsSync(lockFile(target))).toBe(false);
    await startServer(target, "next-start");
    await account();
  }, 300_000);
});
