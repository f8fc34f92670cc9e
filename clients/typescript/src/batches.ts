import type { Batch, BatchCreated, BatchList, BatchOperationId, BatchRequest } from "./generated/operations.js";
import { linesOf, textChunksOf } from "./ndjson.js";
import { sleep, type Transport } from "./transport.js";
import type { Answer, CallOptions, CreditReceipt } from "./types.js";

/**
 * Batches (`/v1/batches`): many lookups of one operation in one job on the server, paid and paced
 * by the key that creates it. Control calls are free; they count towards the key's per-second
 * limit, which the transport waits out on a 429.
 */
export type BatchCreateRequest = Omit<BatchRequest, "operation"> & {
  /** The operation id (`event_details_id`), as the registry names it. */
  operation: BatchOperationId;
};

/** One line of a batch's NDJSON results: one input found, in the API's own shapes (what `npm run import` reads). */
export type BatchRecord = Record<string, unknown>;

/** A batch ends here: done, stopped (cap, credits, key) or canceled. A paused batch is waited on. */
export const FINISHED_STATUSES: readonly Batch["status"][] = ["done", "stopped", "canceled"];
export const isFinished = (batch: Pick<Batch, "status">): boolean => FINISHED_STATUSES.includes(batch.status);

export type WaitOptions = Omit<CallOptions, "maxRetries"> & {
  /** First pause between polls, in ms (default 500); it grows by half each poll… */
  pollIntervalMs?: number;
  /** …up to this (default 5,000). */
  maxPollIntervalMs?: number;
  /** Stop waiting after this many ms: a BatchWaitTimeoutError with the batch as last read (the batch goes on). */
  deadlineMs?: number;
  /**
   * Resolves when the batch's `batch.finished` webhook has arrived (e.g. a WebhookReceiver's
   * batchFinished(id), `@social-lookup/client/receiver`): the wait then reads the batch once and
   * returns at once instead of at the next poll. Polling goes on meanwhile, in case it never comes.
   */
  finished?: PromiseLike<unknown>;
  /** Each status read while waiting (progress bars). */
  onProgress?: (batch: Batch) => void;
};

export class BatchWaitTimeoutError extends Error {
  constructor(readonly batch: Batch) {
    super(`batch ${batch.id} is still ${batch.status} (${batch.done}/${batch.total} done)`);
    this.name = "BatchWaitTimeoutError";
  }
}

/** A batch on the server, by its id: its status, waiting for it, its results, control. */
export class BatchHandle {
  constructor(
    private readonly transport: Transport,
    readonly id: string,
    /** What creating it answered (null for a handle made from an id). */
    readonly created: BatchCreated | null = null,
    /** The creation's receipt: creating is free (charged 0); the lookups are charged as they run. */
    readonly credits: CreditReceipt | null = null,
  ) {}

  #path(suffix = ""): string {
    return `/v1/batches/${encodeURIComponent(this.id)}${suffix}`;
  }

  /** The batch now: status, counts, creditsSpent, the last webhook delivery. */
  async status(options?: CallOptions): Promise<Batch> {
    return (await this.transport.json<Batch>({ method: "GET", path: this.#path(), idempotent: true }, options)).data;
  }

  /**
   * Resolves with the batch once it is done, stopped or canceled: polls with a growing pause
   * (500 ms → 5 s), or returns as soon as `finished` (its webhook) resolves.
   */
  async wait(options: WaitOptions = {}): Promise<Batch> {
    const startedAt = Date.now();
    let pauseMs = options.pollIntervalMs ?? 500;
    const maxPauseMs = options.maxPollIntervalMs ?? 5000;
    // The webhook cuts one pause short; after it (or should it fail) the polls go on as before.
    let webhook: Promise<void> | null =
      options.finished === undefined
        ? null
        : Promise.resolve(options.finished).then(
            () => undefined,
            () => new Promise<void>(() => undefined),
          );
    for (;;) {
      const batch = await this.status(options);
      options.onProgress?.(batch);
      if (isFinished(batch)) return batch;
      if (options.deadlineMs !== undefined && Date.now() - startedAt >= options.deadlineMs) throw new BatchWaitTimeoutError(batch);
      if (webhook === null) await sleep(pauseMs, options.signal);
      else {
        // A pause of its own, so that the webhook's arrival clears its timer (no timer keeps the process up).
        const cut = new AbortController();
        const pause = sleep(pauseMs, options.signal === undefined ? cut.signal : AbortSignal.any([options.signal, cut.signal]));
        const woke = await Promise.race([pause.then(() => false), webhook.then(() => true)]);
        if (woke) {
          webhook = null;
          pause.catch(() => undefined);
          cut.abort();
          options.signal?.throwIfAborted();
        }
      }
      pauseMs = Math.min(maxPauseMs, Math.round(pauseMs * 1.5));
    }
  }

  /** The results as records (NDJSON, one per input found), read as they stream in. */
  async *results(options: CallOptions = {}): AsyncGenerator<BatchRecord> {
    const response = await this.transport.stream({ method: "GET", path: this.#path("/results"), query: new URLSearchParams({ format: "ndjson" }), idempotent: true }, options);
    if (response.body === null) return;
    for await (const line of linesOf(response.body, options.signal)) yield JSON.parse(line) as BatchRecord;
  }

  /**
   * The results as the server's CSV (one row per record, the input and its outcome first; cells
   * defused against spreadsheet formulas), as text chunks to write out as they come.
   */
  async *csv(options: CallOptions = {}): AsyncGenerator<string> {
    const response = await this.transport.stream({ method: "GET", path: this.#path("/results"), query: new URLSearchParams({ format: "csv" }), idempotent: true }, options);
    if (response.body === null) return;
    yield* textChunksOf(response.body, options.signal);
  }

  async pause(options?: CallOptions): Promise<Batch> {
    return this.#control("pause", options);
  }

  async resume(options?: CallOptions): Promise<Batch> {
    return this.#control("resume", options);
  }

  /** Stops it for good: lookups not yet made are never made (nor charged). */
  async cancel(options?: CallOptions): Promise<Batch> {
    return this.#control("cancel", options);
  }

  async #control(action: "pause" | "resume" | "cancel", options?: CallOptions): Promise<Batch> {
    // Repeating an action only ever answers 409 (already in that state): safe to retry.
    return (await this.transport.json<Batch>({ method: "POST", path: this.#path(`/${action}`), idempotent: true }, options)).data;
  }
}

export class Batches {
  constructor(private readonly transport: Transport) {}

  /**
   * Creates a batch (202): inputs the operation cannot look up come back in `created.rejected`.
   * Not retried after a network error or a 5xx (it could create a second batch); a 429 is waited out.
   */
  async create(request: BatchCreateRequest, options?: CallOptions): Promise<BatchHandle> {
    const answer: Answer<BatchCreated> = await this.transport.json<BatchCreated>({ method: "POST", path: "/v1/batches", body: request, idempotent: false }, options);
    return new BatchHandle(this.transport, answer.data.id, answer.data, answer.credits);
  }

  /** A handle on an existing batch of this key (nothing is sent until you call it). */
  get(id: string): BatchHandle {
    return new BatchHandle(this.transport, id);
  }

  /** The key's batches, newest first (1–200, default 50). */
  async list(options: CallOptions & { limit?: number } = {}): Promise<Batch[]> {
    const query = options.limit === undefined ? undefined : new URLSearchParams({ limit: String(options.limit) });
    return (await this.transport.json<BatchList>({ method: "GET", path: "/v1/batches", query, idempotent: true }, options)).data.batches;
  }
}
