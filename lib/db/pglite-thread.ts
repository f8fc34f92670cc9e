import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { metrics } from "@/lib/metrics/registry";

/**
 * The embedded database on its own thread (lib/db/pglite-worker.mjs). Queries are posted to the
 * worker and answered there, so a long read never blocks the thread that serves requests.
 * PGlite orders them: a statement outside a transaction waits until an open one ends. A
 * `yielding` query (a page of a long read) starts only when nothing else runs or waits.
 */
export type ThreadCall =
  | { op: "query"; text: string; params: unknown[]; tx?: number; yielding?: boolean }
  | { op: "exec"; sql: string; tx?: number }
  | { op: "begin" }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "close" };

export interface PgliteThread {
  /** False once the worker has exited or failed, or the database was closed: every call then fails. */
  alive(): boolean;
  call<Result>(message: ThreadCall): Promise<Result>;
  /** Closes the database in the worker, then ends the worker. */
  close(): Promise<void>;
}

type PlainError = { name: string; message: string } & Record<string, string>;
/** `waitedMs`: a page of a long read that had to wait for other statements, and how long (pglite-worker.mjs). */
type Reply = { id: number; ok: true; result: unknown; waitedMs?: number } | { id: number; ok: false; error: PlainError };
type Ready = { ready: true } | { ready: false; error: PlainError };

/** An error from the worker, with its SQLSTATE `code` and the rest of PostgreSQL's fields. */
export class DatabaseThreadError extends Error {
  constructor(plain: PlainError) {
    super(plain.message);
    for (const [field, value] of Object.entries(plain)) if (field !== "message" && field !== "name") Object.assign(this, { [field]: value });
  }
}

const WORKER_FILE = "pglite-worker.mjs";

/** Next's server bundle moves this module; the worker file stays in lib/db of the app. */
const workerPath = (): string => {
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), WORKER_FILE);
  return fs.existsSync(beside) ? beside : path.join(process.cwd(), "lib", "db", WORKER_FILE);
};

export const startPgliteThread = async (dbDir: string): Promise<PgliteThread> => {
  const worker = new Worker(workerPath(), { workerData: { dir: dbDir } });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let gone: Error | null = null;
  // Moved by steps: every embedded database of the process (tests open several) adds its own calls.
  const { dbWorkerQueueDepth, dbLongReadWaits, dbLongReadWaitSeconds } = metrics();
  // The worker keeps the process alive only while a call waits for it (CLIs exit when done).
  const holdWhileBusy = () => (pending.size > 0 ? worker.ref() : worker.unref());

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    worker.once("error", onError);
    worker.once("message", (message: Ready) => {
      worker.off("error", onError);
      if (message.ready) resolve();
      else reject(new DatabaseThreadError(message.error));
    });
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });

  const failAll = (error: Error) => {
    gone ??= error;
    for (const { reject } of pending.values()) reject(error);
    dbWorkerQueueDepth.dec(pending.size);
    pending.clear();
  };
  worker.on("message", (reply: Reply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    dbWorkerQueueDepth.dec();
    holdWhileBusy();
    if (reply.ok && reply.waitedMs !== undefined) {
      dbLongReadWaits.inc();
      dbLongReadWaitSeconds.inc(reply.waitedMs / 1000);
    }
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(new DatabaseThreadError(reply.error));
  });
  worker.on("error", (error) => failAll(new Error(`The embedded database thread failed: ${error.message}`)));
  worker.on("exit", (code) => failAll(new Error(`The embedded database thread has stopped (exit code ${code}).`)));
  holdWhileBusy();

  const call = <Result>(message: ThreadCall): Promise<Result> => {
    if (gone) return Promise.reject(gone);
    const id = nextId;
    nextId += 1;
    return new Promise<Result>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      dbWorkerQueueDepth.inc();
      holdWhileBusy();
      // A page of a long read carries when it was sent: the worker reports how long it waited.
      worker.postMessage(message.op === "query" && message.yielding === true ? { id, ...message, sentAt: performance.timeOrigin + performance.now() } : { id, ...message });
    });
  };

  return {
    alive: () => gone === null,
    call,
    close: async () => {
      if (gone) return;
      try {
        await call({ op: "close" });
      } finally {
        gone = new Error("The embedded database is closed.");
        await worker.terminate();
      }
    },
  };
};
