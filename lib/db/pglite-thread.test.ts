import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "@/lib/database";
import { metrics } from "@/lib/metrics/registry";
import { valueOf } from "@/tests/support/metric-deltas";

/**
 * The embedded database on its worker thread, through the same Db interface as before: errors keep
 * their SQLSTATE, transactions commit or roll back whole and never interleave, a statement outside
 * a transaction waits for it, and close ends the thread and releases the lock.
 */
describe("the embedded database on its own thread", () => {
  let dataDir: string;
  let db: Db;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-pglite-thread-"));
    db = await openDb({ dataDir, timeoutMs: 10_000 });
    await db.exec("CREATE TABLE thread_counter (id integer PRIMARY KEY, n integer NOT NULL); INSERT INTO thread_counter VALUES (1, 0);");
  }, 120_000);

  afterAll(async () => {
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers parameterised queries with typed rows", async () => {
    const rows = await db.query<{ n: number; at: Date; tags: string[] }>("SELECT $1::integer + 1 AS n, now() AS at, $2::text[] AS tags", [41, ["a", "b"]]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.n).toBe(42);
    expect(rows[0]?.at).toBeInstanceOf(Date);
    expect(rows[0]?.tags).toEqual(["a", "b"]);
  });

  it("passes PostgreSQL's error code and message back", async () => {
    const error: unknown = await db.query("INSERT INTO thread_counter VALUES (1, 0)").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: "23505", constraint: "thread_counter_pkey" });
    expect((error as Error).message).toMatch(/duplicate key/);
  });

  it("runs concurrent read-then-write transactions one after the other, never interleaved", async () => {
    const transactions = 20;
    const seen = await Promise.all(
      Array.from({ length: transactions }, () =>
        db.transaction(async (tx) => {
          const [row] = await tx.query<{ n: number }>("SELECT n FROM thread_counter WHERE id = 1");
          // Another caller's statement would slip in here if transactions interleaved.
          await new Promise((resolve) => setTimeout(resolve, 2));
          await tx.query("UPDATE thread_counter SET n = $1 WHERE id = 1", [(row?.n ?? 0) + 1]);
          return row?.n ?? -1;
        }),
      ),
    );
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: transactions }, (_, index) => index));
    expect(await db.query("SELECT n FROM thread_counter WHERE id = 1")).toEqual([{ n: transactions }]);
  });

  it("rolls a transaction back whole when its work throws, and a statement outside waits for it", async () => {
    let outside: Promise<{ n: number }[]> | null = null;
    const failed = await db
      .transaction(async (tx) => {
        await tx.query("UPDATE thread_counter SET n = n + 1000 WHERE id = 1");
        outside = db.query<{ n: number }>("SELECT n FROM thread_counter WHERE id = 1");
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error("changed my mind");
      })
      .catch((error: unknown) => error);
    expect((failed as Error).message).toBe("changed my mind");
    expect(await outside).toEqual([{ n: 20 }]);
    // A failed statement inside a transaction fails the transaction, and nothing of it stays.
    await expect(
      db.transaction(async (tx) => {
        await tx.query("UPDATE thread_counter SET n = n + 1 WHERE id = 1");
        await tx.query("INSERT INTO thread_counter VALUES (1, 0)");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await db.query("SELECT n FROM thread_counter WHERE id = 1")).toEqual([{ n: 20 }]);
  });

  it("lets a request's query go ahead of the waiting pages of long reads", async () => {
    const finished: string[] = [];
    const page = (index: number) =>
      db.longReads.query("SELECT pg_sleep(0.05), $1::integer AS page", [index]).then(() => finished.push(`page ${index}`));
    const pages = [1, 2, 3, 4, 5].map(page);
    const request = db.query("SELECT n FROM thread_counter WHERE id = 1").then(() => finished.push("request"));
    await Promise.all([...pages, request]);
    // At most the page already running goes before it; the pages queued before it wait (in order).
    expect(finished.indexOf("request")).toBeLessThanOrEqual(1);
    expect(finished.filter((name) => name !== "request")).toEqual(["page 1", "page 2", "page 3", "page 4", "page 5"]);
  });

  it("shows the calls waiting for or running on the thread as db_worker_queue_depth", async () => {
    const { dbWorkerQueueDepth } = metrics();
    const before = await valueOf(dbWorkerQueueDepth);
    const statements = [1, 2, 3].map(() => db.query("SELECT pg_sleep(0.05)"));
    expect(await valueOf(dbWorkerQueueDepth)).toBe(before + 3);
    await Promise.all(statements);
    expect(await valueOf(dbWorkerQueueDepth)).toBe(before);
  });

  it("counts a page of a long read that waited for other statements, with its wait, and not one that started at once", async () => {
    const { dbLongReadWaits, dbLongReadWaitSeconds } = metrics();
    // The thread takes messages that came while it finished the last answer as having waited (it
    // cannot tell them from ones that came while it computed): let the previous test's end settle.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waitsBefore = await valueOf(dbLongReadWaits);
    await db.longReads.query("SELECT 1 AS alone");
    expect(await valueOf(dbLongReadWaits)).toBe(waitsBefore);

    const secondsBefore = await valueOf(dbLongReadWaitSeconds);
    const busy = db.query("SELECT pg_sleep(0.2)");
    // The statement reaches the thread first.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const pages = [1, 2].map((index) => db.longReads.query("SELECT $1::integer AS page", [index]));
    await Promise.all([busy, ...pages]);
    expect(await valueOf(dbLongReadWaits)).toBe(waitsBefore + 2);
    // Both waited behind the 200 ms statement, for the most of it.
    expect((await valueOf(dbLongReadWaitSeconds)) - secondsBefore).toBeGreaterThan(0.2);
  });

  it("holds the data folder's lock while open and releases it on close", async () => {
    const lock = path.join(dataDir, "pglite.lock");
    expect(fs.readFileSync(lock, "utf8")).toBe(String(process.pid));
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "sl-pglite-thread-b-"));
    const second = await openDb({ dataDir: other, timeoutMs: 10_000 });
    expect(fs.existsSync(path.join(other, "pglite.lock"))).toBe(true);
    await second.close();
    expect(fs.existsSync(path.join(other, "pglite.lock"))).toBe(false);
    await expect(second.query("SELECT 1")).rejects.toThrow(/closed/);
    fs.rmSync(other, { recursive: true, force: true });
  }, 120_000);
});
