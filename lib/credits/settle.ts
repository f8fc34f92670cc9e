import type { Queryable } from "@/lib/db/client";

/** Where a request came in: its usage row says so (usage_events.channel), and the Usage page filters by it. */
export type Channel = "api" | "console" | "batch" | "mcp";

/**
 * Credits and usage records are settled by group commit: requests that arrive while a batch is
 * being written wait for the next one, and each batch is one call of the settle_requests()
 * database function (lib/credits/settle.sql, where the policy is written down) — one round trip
 * and one transaction for many requests. Inside it the batch's keys are locked, each request is
 * decided in arrival order as its own conditional charge would be (never read-then-write across
 * transactions), and every request gets exactly one usage row in the same transaction as its charge.
 */
export type Outcome = "found" | "not_found" | "400" | "403" | "429" | "500" | "reserve" | "commit" | "refund";

export type SettleRequest = {
  requestId: string;
  keyId: string;
  operation: string;
  costCredits: number;
  outcome: Outcome;
  /** With "refund": the status the request finally answers (404, 429, 500). */
  finalStatus?: 404 | 429 | 500;
  paramsSummary: string;
  startedAt: number;
  /** performance.now() at the start, for the latency recorded with the usage row. */
  startedPerf: number;
  /** Where the request came in; /v1 ("api") when not said. */
  channel?: Channel;
};

export type Settlement = {
  status: 200 | 400 | 401 | 402 | 403 | 404 | 429 | 500;
  creditsCharged: number;
  creditsRemaining: number;
  /** The latency written with the usage row (ms from the request's start to its settlement). */
  latencyMs: number;
};

type Pending = {
  request: SettleRequest;
  /** Epoch ms after which the caller has given up (its database timeout from the moment it asked). */
  deadline: number;
  resolve: (value: Settlement) => void;
  reject: (error: unknown) => void;
};

type SettleRow = { r_request_id: string; r_status: number; r_charged: number; r_remaining: number | string };

const MAX_BATCH = 1000;

export type Settler = {
  settle(request: SettleRequest): Promise<Settlement>;
  /** Resolves when nothing is waiting to be written. */
  drain(): Promise<void>;
  /** Request ids whose settlement may have committed unseen and is still to be voided. */
  uncertainCount(): number;
  /**
   * The answer to this settled request was never written (its client closed the connection
   * first): its charge goes back and its usage record becomes 499 (release_unanswered), soon and
   * in the background, retried while the database is unreachable.
   */
  release(requestId: string): void;
};

/** A request that waited longer than its deadline for the database: it answers 500, uncharged. */
export class SettleTimeoutError extends Error {}

/**
 * SQLSTATE classes 22 (data exception) and 23 (integrity constraint): one request's row is at
 * fault, not the database — worth settling the rest of its batch one by one.
 */
const isDataError = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
};

// How often lost answers are retried for voiding while the database is unreachable.
const VOID_RETRY_MS = 250;

// Margin between the database deadline and the caller's own timeout.
const DEADLINE_MARGIN_MS = 250;

/**
 * Request ids to hand to one SQL function in the background, all those gathered at once: the
 * first run after `firstDelayMs` (0: the end of this event-loop turn), retried every
 * VOID_RETRY_MS while the database fails. An id leaves the set once its run has committed.
 */
const idSweeper = (db: () => Promise<Queryable>, sql: string, firstDelayMs: number) => {
  const ids = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = (delayMs: number) => {
    timer ??= setTimeout(() => {
      timer = null;
      const batch = [...ids];
      db()
        .then((database) => database.query(sql, [batch]))
        .then(() => {
          for (const id of batch) ids.delete(id);
        })
        .catch(() => run(VOID_RETRY_MS));
    }, delayMs);
    timer.unref?.();
  };
  return { ids, schedule: () => run(firstDelayMs) };
};

export const createSettler = (db: () => Promise<Queryable>, options: { timeoutMs?: number } = {}): Settler => {
  const timeoutMs = options.timeoutMs ?? 5000;
  let queue: Pending[] = [];
  let flushing: Promise<void> | null = null;
  let scheduled = false;

  // Lost answers are voided after a pause (the database just failed); unanswered ones at once.
  const voids = idSweeper(db, "SELECT void_settlements($1::uuid[])", VOID_RETRY_MS);
  const releases = idSweeper(db, "SELECT release_unanswered($1::uuid[])", 0);

  const writeBatch = async (queued: Pending[]) => {
    // Requests that waited past their deadline behind a stalled database are answered now.
    const batch = queued.filter((pending) => {
      if (pending.request.outcome === "commit" || pending.request.outcome === "refund") return true;
      if (Date.now() <= pending.deadline) return true;
      pending.reject(new SettleTimeoutError("the database did not answer in time"));
      return false;
    });
    if (batch.length === 0) return;
    const now = performance.now();
    const latencies = batch.map(({ request }) => Math.max(0, Math.round(now - request.startedPerf)));
    const payload = batch.map(({ request, deadline }, ord) => ({
      ord,
      request_id: request.requestId,
      key_id: request.keyId,
      operation: request.operation,
      cost: request.costCredits,
      outcome: request.outcome,
      final_status: request.finalStatus ?? null,
      latency_ms: latencies[ord] ?? 0,
      params_summary: request.paramsSummary,
      // Only a channel other than /v1's default is sent: the hot path's rows need no label.
      ...(request.channel !== undefined && request.channel !== "api" ? { channel: request.channel } : {}),
      created_at: new Date(request.startedAt).toISOString(),
      deadline: new Date(deadline).toISOString(),
    }));
    try {
      const rows = await (await db()).query<SettleRow>("SELECT * FROM settle_requests($1::json)", [
        JSON.stringify(payload),
      ]);
      const byId = new Map(rows.map((row) => [row.r_request_id, row]));
      for (const [ord, pending] of batch.entries()) {
        const row = byId.get(pending.request.requestId);
        if (!row) {
          pending.reject(new Error(`settle_requests returned no row for ${pending.request.requestId}`));
          continue;
        }
        pending.resolve({
          status: row.r_status as Settlement["status"],
          creditsCharged: row.r_charged,
          creditsRemaining: Number(row.r_remaining),
          latencyMs: latencies[ord] ?? 0,
        });
      }
    } catch (error) {
      // One request's bad row must never fail its neighbours: settle them one by one. A database
      // that is down or slow fails the whole batch at once (no retries that would stack timeouts).
      if (batch.length > 1 && isDataError(error)) {
        for (const pending of batch) await writeBatch([pending]);
        return;
      }
      // Not a data error: the batch may have committed with its answer lost on the way back.
      // These requests answer 500, so once the database answers again any charge is voided.
      if (!isDataError(error)) {
        for (const pending of batch) voids.ids.add(pending.request.requestId);
        voids.schedule();
      }
      for (const pending of batch) pending.reject(error);
    }
  };

  const flush = async () => {
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      await writeBatch(batch);
    }
    flushing = null;
  };

  // The first request of a batch waits for the end of this event-loop turn (setImmediate), so
  // every request whose I/O was handled in the same turn joins its commit; requests arriving
  // while a batch is being written join the next one.
  const schedule = () => {
    if (scheduled || flushing) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      flushing ??= flush();
    });
  };

  return {
    settle: (request) =>
      new Promise<Settlement>((resolve, reject) => {
        queue.push({ request, deadline: Date.now() + timeoutMs - DEADLINE_MARGIN_MS, resolve, reject });
        schedule();
      }),
    uncertainCount: () => voids.ids.size,
    release: (requestId) => {
      releases.ids.add(requestId);
      releases.schedule();
    },
    drain: async () => {
      while (flushing || scheduled) await (flushing ?? new Promise((resolve) => setImmediate(resolve)));
    },
  };
};
