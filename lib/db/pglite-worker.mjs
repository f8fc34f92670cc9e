// The embedded database's own thread (lib/db/pglite-thread.ts starts it): PGlite runs here, so a
// long query never stops the thread that serves requests. Plain JavaScript, so the same file loads
// under tsx, vitest and Next's server bundle without a TypeScript loader in the worker.
//
// Messages in:  { id, op: "query", text, params, tx?, yielding?, sentAt? } | { id, op: "exec", sql, tx? }
//               | { id, op: "begin" } | { id, op: "end", tx, commit } | { id, op: "close" }
// Messages out: { ready: true } | { ready: false, error } once, then { id, ok, result | error, waitedMs? }:
//               waitedMs on the answer to a yielding page that had to wait for others (metrics).
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

/** What the caller may inspect on a database error (SQLSTATE code and friends) survives the thread hop. */
const ERROR_FIELDS = ["code", "detail", "hint", "constraint", "table", "column", "schema", "severity", "where", "position"];
const plainError = (error) => {
  const plain = { name: "Error", message: String(error) };
  if (error instanceof Error) {
    plain.name = error.name;
    plain.message = error.message;
    for (const field of ERROR_FIELDS) if (typeof error[field] === "string") plain[field] = error[field];
  }
  return plain;
};

class RolledBack extends Error {}

/** Open transactions by the id of their "begin" message. */
const open = new Map();

const begin = (db, id) =>
  new Promise((begun, failed) => {
    const entry = { tx: null, commit: null, rollback: null, done: null };
    entry.done = db.transaction(
      (tx) =>
        new Promise((commit, rollback) => {
          entry.tx = tx;
          entry.commit = commit;
          entry.rollback = rollback;
          begun(id);
        }),
    );
    open.set(id, entry);
    entry.done.catch((error) => {
      open.delete(id);
      failed(error);
    });
  });

const end = async (txId, commit) => {
  const entry = open.get(txId);
  if (!entry || !entry.tx) throw new Error(`No open transaction ${txId}`);
  open.delete(txId);
  if (commit) entry.commit();
  else entry.rollback(new RolledBack());
  try {
    await entry.done;
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
  }
  return null;
};

const target = (db, message) => {
  if (message.tx === undefined) return db;
  const entry = open.get(message.tx);
  if (!entry || !entry.tx) throw new Error(`No open transaction ${message.tx}`);
  return entry.tx;
};

const run = async (db, message) => {
  switch (message.op) {
    case "query":
      return (await target(db, message).query(message.text, message.params)).rows;
    case "exec":
      await target(db, message).exec(message.sql);
      return null;
    case "begin":
      return begin(db, message.id);
    case "end":
      return end(message.tx, message.commit);
    case "close":
      await db.close();
      return null;
    default:
      throw new Error(`Unknown database operation ${String(message.op)}`);
  }
};

const port = parentPort;
if (!port) throw new Error("lib/db/pglite-worker.mjs runs as a worker thread only");

try {
  const db = await PGlite.create(workerData.dir);
  const answer = (message, waitedMs) =>
    run(db, message).then(
      (result) => port.postMessage(waitedMs === undefined ? { id: message.id, ok: true, result } : { id: message.id, ok: true, result, waitedMs }),
      (error) => port.postMessage({ id: message.id, ok: false, error: plainError(error) }),
    );
  // Pages of long reads ("yielding") go one at a time, and only while no other statement runs or
  // waits: a request's query waits behind at most one page, however many exports stream. PGlite
  // computes synchronously, so messages that arrived meanwhile are taken off the port first.
  // A page that could not start at once (another statement or page ran or waited when it came,
  // or it arrived while the thread computed) says how long it waited since it was sent (sentAt:
  // the epoch in ms, a clock both threads share); the thread counts it.
  const yielding = [];
  let others = 0;
  let pageRunning = false;
  const epochMs = () => performance.timeOrigin + performance.now();
  const take = (message, arrivedBusy) => {
    if (message.yielding) {
      yielding.push({ message, blocked: arrivedBusy || others > 0 || pageRunning || yielding.length > 0 });
      return;
    }
    others += 1;
    for (const page of yielding) page.blocked = true;
    void answer(message).finally(() => {
      others -= 1;
      pump(true);
    });
  };
  const pump = (afterWork) => {
    if (pageRunning) return;
    for (let pending = receiveMessageOnPort(port); pending; pending = receiveMessageOnPort(port)) take(pending.message, afterWork);
    if (others > 0) return;
    const next = yielding.shift();
    if (!next) return;
    pageRunning = true;
    const sentAt = typeof next.message.sentAt === "number" ? next.message.sentAt : epochMs();
    void answer(next.message, next.blocked ? Math.max(0, epochMs() - sentAt) : undefined).finally(() => {
      pageRunning = false;
      pump(true);
    });
  };
  port.on("message", (message) => {
    take(message, false);
    pump(false);
  });
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ ready: false, error: plainError(error) });
}
