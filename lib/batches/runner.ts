import { summariseQuery } from "@/lib/records/params";
import type { Db } from "@/lib/db/client";
import { describeError, log } from "@/lib/log";
import { metrics } from "@/lib/metrics/registry";
import { batchLookupsPerProcess, batchTarget, createLatencyEstimate } from "./concurrency";
import { createFairGate, type FairGate } from "./fair-gate";
import type { Registry } from "@/lib/operations";
import { batchOperationById, type BatchOperation } from "./operations";
import { admitted, createPacer } from "./pacer";
import { payerOf, type Payer } from "./payer";
import {
  abandonAttempt,
  beginAttempts,
  chargedUsageSince,
  claimBatch,
  createAttemptRecorder,
  dropAbandonedCreations,
  finishBatch,
  inFlightItems,
  nextOpenItem,
  recordAttempt,
  releaseLease,
  renewLease,
  stopBatch,
  type AttemptResult,
  type InputOutcome,
  type OpenItem,
  type StartedItem,
} from "./lease";
import type { BatchRow, StopReason } from "./repository";
import type { BatchPageAnswer, BatchServices } from "./services";

/**
 * Runs batches in the server process: claims one when it has room, looks its pages up as /v1 would
 * (the lookup it is given, ./services.ts) with the paying key (lib/batches/payer.ts) — several inputs side by side, the pages
 * of one input one after another — paced under the key's per-second limit, and lets go of it when
 * it is done, paused, stopped or taken over. Each batch keeps as many lookups in flight as its
 * key's rate and the measured latency need (lib/batches/concurrency.ts), under an optional ceiling
 * (`concurrency`) and its fair share of the process's bound (a part of `lookupsPerInstance`).
 */
export type RunnerSettings = {
  leaseMs: number;
  perInstance: number;
  perUser: number;
  /** The most lookups one batch keeps in flight (BATCH_CONCURRENCY); unset: as many as its key's rate needs. */
  concurrency: number | undefined;
  /** Provider calls in flight in this process (UPSTREAM_MAX_CONCURRENCY): batches take at most a part of it. */
  lookupsPerInstance: number;
  /** How often an idle runner looks for work (a new batch also wakes it). */
  pollMs: number;
  /** Names this instance in lease owners, as on its log lines: INSTANCE_ID, or "host:port". */
  instanceName: string;
  /**
   * The longest a lookup can take (database and provider timeouts included). An attempt left in
   * flight is judged only once it is this old: its lookup, if still running somewhere, has ended.
   */
  attemptSettleMs: number;
};

/** `services`: how a page is looked up and where records are re-read (./services.ts), from whoever starts the runner. */
export type RunnerDeps = {
  db: () => Promise<Db>;
  services: () => Promise<BatchServices>;
  settings: RunnerSettings;
  /** The operations batches run (the process's registry unless given). */
  operations?: Registry;
};

export type Runner = { wake(): void; stop(): Promise<void>; owner: string };

/** How often an instance deletes batches whose creating instance died (lib/batches/repository.ts CREATING_LEASE). */
const ABANDONED_CHECK_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const outcomeOf = (status: number): InputOutcome => (status === 200 ? "succeeded" : status === 404 ? "not_found" : "failed");

/** An input finished now (its last page recorded by this instance): a found or not-found answer is "ok". */
const countInputDone = (recorded: boolean, result: AttemptResult): void => {
  if (!recorded || result.outcome === null) return;
  metrics().batchInputsDone.inc({ outcome: result.outcome === "failed" ? "failed" : "ok" });
};

/** What a finished lookup leaves in the batch: the page's answer and whether another page follows. */
const resultOf = (
  operation: BatchOperation,
  batch: BatchRow,
  item: OpenItem,
  answer: BatchPageAnswer,
): AttemptResult => {
  const found = answer.status === 200;
  const next =
    found && item.page < batch.max_pages ? (operation.batch.nextPage?.(answer.data, new URLSearchParams(item.query)) ?? null) : null;
  return {
    httpStatus: answer.status,
    creditsCharged: answer.creditsCharged,
    requestId: answer.requestId,
    message: found ? null : answer.message,
    summary: found ? operation.batch.summary(answer.data) : null,
    data: found ? JSON.stringify(answer.data) : null,
    nextQuery: next === null ? null : next.toString(),
    outcome: next === null ? outcomeOf(answer.status) : null,
  };
};

export const createRunner = (deps: RunnerDeps): Runner => {
  const processBound = batchLookupsPerProcess(deps.settings.lookupsPerInstance);
  const gate: FairGate = createFairGate(processBound);
  const pacer = createPacer();
  // Which instance holds a batch, readable by an operator: host, port and process, then a nonce.
  const owner = `${deps.settings.instanceName}:${process.pid}:${crypto.randomUUID()}`;
  const active = new Set<string>();
  let stopped = false;
  let ticking = false;
  // A wake that came during a tick: that tick may have looked before the new batch was there.
  let tickAgain = false;
  let droppedAt = 0;
  let timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Attempts left in flight by a runner that died: charged if the pipeline wrote a 200 usage
   * record for them (recorded as done, the record re-read from the source at no charge), else
   * put back in line. Only runs on a freshly claimed batch, once its previous runner's lookup
   * must have ended.
   */
  const reconcile = async (db: Db, services: BatchServices, batch: BatchRow, operation: BatchOperation) => {
    for (const item of await inFlightItems(db, batch.id)) {
      if (item.attempt_id === null) continue;
      // A runner that lost its lease while alive may still be waiting for this lookup's answer.
      if (item.age_ms < deps.settings.attemptSettleMs) await sleep(deps.settings.attemptSettleMs - item.age_ms);
      const charged =
        item.key_id !== null && item.attempt_started_at !== null
          ? await chargedUsageSince(db, {
              keyId: item.key_id,
              operation: operation.id,
              paramsSummary: summariseQuery(new URLSearchParams(item.query), operation.params.map((param) => param.name)),
              since: new Date(item.attempt_started_at),
            })
          : null;
      if (charged === null) {
        await abandonAttempt(db, batch.id, item, item.attempt_id);
        continue;
      }
      let data: unknown = null;
      try {
        const lookup = operation.prepare(new URLSearchParams(item.query), { cursors: services.cursors, eventSiteHosts: services.eventSiteHosts });
        // reserve() refuses: a provider call that would cost money is never made here.
        const found = await lookup(services.connector, { keyOwnerId: batch.user_id, reserve: async () => false });
        if (found.found) data = JSON.parse(found.dataJson);
      } catch (error) {
        log.warn("batch: could not re-read a charged record", { batchId: batch.id, error: describeError(error) });
      }
      const answer = {
        status: 200,
        creditsCharged: charged.credits_charged,
        requestId: charged.request_id,
        message: null,
        data,
      };
      const result = resultOf(operation, batch, item, answer);
      countInputDone(await recordAttempt(db, batch.id, item, item.attempt_id, result), result);
      log.info("batch: recovered a charged lookup after a restart", { batchId: batch.id, requestId: charged.request_id });
    }
  };

  const run = async (batch: BatchRow): Promise<void> => {
    const db = await deps.db();
    const services = await deps.services();
    const { leaseMs } = deps.settings;
    const operation = batchOperationById(batch.operation, deps.operations);
    if (!operation) {
      log.error("batch: unknown operation", { batchId: batch.id, operation: batch.operation });
      await stopBatch(db, batch.id, owner, "key");
      return;
    }
    let held = true;
    const heartbeat = setInterval(() => {
      renewLease(db, batch.id, owner, leaseMs)
        .then((still) => {
          if (!still) held = false;
        })
        .catch((error: unknown) => log.warn("batch: lease renewal failed", { batchId: batch.id, error: describeError(error) }));
    }, Math.max(250, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    const lanes = new Set<Promise<void>>();
    const latency = createLatencyEstimate();
    /** When each lookup in flight started (performance.now()), oldest first. */
    const startedAt = new Map<number, number>();
    let lookupsStarted = 0;
    /** Lookups this batch may keep in flight now: what its key's rate needs, within its share. */
    const inFlightLimit = (qpsLimit: number): number => {
      const oldest = startedAt.values().next();
      const oldestMs = oldest.done === true ? 0 : performance.now() - oldest.value;
      return gate.want(batch.id, batchTarget({ qpsLimit, latencyMs: latency.estimateMs(oldestMs), ceiling: deps.settings.concurrency }));
    };
    // Pages taken in one statement, each waiting for its place and its slot under the key's pace.
    let ready: { key: Payer | null; items: StartedItem[] } = { key: null, items: [] };
    const record = createAttemptRecorder(db, batch.id);
    let ending: StopReason | "lost" | null = null;
    try {
      await reconcile(db, services, batch, operation);
      let payer: { value: Payer | null; readAt: number } = { value: null, readAt: 0 };
      /** Keys /v1 refused as revoked while this batch ran. */
      const refusedKeyIds = new Set<string>();
      const lookup = (key: Payer, item: OpenItem, attemptId: string) => async () => {
        const began = performance.now();
        const lookupNumber = (lookupsStarted += 1);
        startedAt.set(lookupNumber, began);
        let answer: BatchPageAnswer;
        try {
          answer = await services.lookup(operation, { token: key.token, query: new URLSearchParams(item.query), maxAgeS: batch.max_age_s ?? undefined });
        } finally {
          startedAt.delete(lookupNumber);
        }
        // A refusal answers at once: it says nothing about how long a lookup takes.
        if (answer.status !== 429 && answer.status !== 402 && answer.status !== 401) latency.observe(performance.now() - began);
        if (answer.status === 429 || answer.status === 402 || answer.status === 401) {
          await abandonAttempt(db, batch.id, item, attemptId);
          // The key's budget was used by someone else (its own /v1 traffic, another instance).
          if (answer.status === 429) pacer.holdOff(key.keyId, 1000);
          else if (answer.status === 402) ending ??= "credits";
          else {
            // The key was revoked. A removed member's batch is handed to a key of its workspace
            // (docs/teams.md "What removal does"): read the payer again; the same key again ends it.
            refusedKeyIds.add(key.keyId);
            payer = { value: null, readAt: 0 };
          }
          return;
        }
        const result = resultOf(operation, batch, item, answer);
        countInputDone(await record({ item, attemptId, result }), result);
      };
      const launch = (work: () => Promise<void>, item: OpenItem, attemptId: string, release: () => void) => {
        metrics().batchLanesInFlight.inc();
        const lane = work()
          .catch(async (error: unknown) => {
            log.error("batch: lookup failed", { batchId: batch.id, error: describeError(error) });
            // Put back in line; if even that fails, the next claim's reconcile settles it.
            await abandonAttempt(db, batch.id, item, attemptId).catch(() => undefined);
          })
          .finally(() => {
            metrics().batchLanesInFlight.dec();
            release();
            lanes.delete(lane);
          });
        lanes.add(lane);
      };
      /** Waits for one lookup in flight to end; false when none is. */
      const oneEnds = async (): Promise<boolean> => {
        if (lanes.size === 0) return false;
        await Promise.race(lanes);
        return true;
      };
      let askedAgain = false;
      while (held && !stopped && ending === null) {
        if (payer.value !== null && lanes.size >= inFlightLimit(payer.value.qpsLimit)) {
          await oneEnds();
          continue;
        }
        if (ready.items.length === 0) {
          // The user may switch console keys while the batch runs: read it again now and then.
          if (Date.now() - payer.readAt > 5000) payer = { value: await payerOf(db, batch), readAt: Date.now() };
          const key = payer.value;
          if (key === null || refusedKeyIds.has(key.keyId)) {
            ending = "key";
            break;
          }
          const start = await beginAttempts(db, {
            batchId: batch.id,
            owner,
            leaseMs,
            keyId: key.keyId,
            costCredits: operation.costCredits,
            // At most one window of the key's pace: taken while the window is still full, the pages
            // are ready the moment it opens (this statement waits behind the lookups in flight on a
            // busy database), and none waits longer than a window — a page taken now and started
            // seconds later would keep running after a pause or a cancel.
            count: Math.max(1, Math.min(inFlightLimit(key.qpsLimit) - lanes.size, admitted(key.qpsLimit), processBound - gate.inUse())),
          });
          if (start.kind !== "started") {
            if (start.kind === "lost") ending = "lost";
            else if (await oneEnds()) continue;
            // Nothing of ours in flight, but the answer may predate a lookup that ended meanwhile
            // (freeing room under the cap, adding a next page): asked again, it is final.
            else if (!askedAgain) askedAgain = true;
            else if (start.kind === "finished") {
              await finishBatch(db, batch.id, owner);
              ending = "lost";
            } else if (start.kind === "cap") ending = "cap";
            // Busy with nothing of ours in flight: pages a failed write left in flight.
            else await reconcile(db, services, batch, operation);
            continue;
          }
          askedAgain = false;
          ready = { key, items: start.items };
        }
        const { key } = ready;
        const item = ready.items.shift();
        if (key === null || item === undefined) continue;
        const release = await gate.acquire(batch.id);
        // Paced right before the lookup, so its start and the limiter's count are moments apart.
        await pacer.slot(key.keyId, key.qpsLimit);
        launch(lookup(key, item, item.attempt_id), item, item.attempt_id, release);
      }
      await Promise.allSettled([...lanes]);
      if (ending === "key" && (await nextOpenItem(db, batch.id)) === null) await finishBatch(db, batch.id, owner);
      else if (ending !== null && ending !== "lost") await stopBatch(db, batch.id, owner, ending);
    } finally {
      // Pages taken but never started go back in line (a next claim would find them in flight).
      for (const item of ready.items.splice(0)) await abandonAttempt(db, batch.id, item, item.attempt_id).catch(() => undefined);
      await Promise.allSettled([...lanes]);
      clearInterval(heartbeat);
      gate.leave(batch.id);
      await releaseLease(db, batch.id, owner).catch(() => undefined);
    }
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    if (ticking) {
      tickAgain = true;
      return;
    }
    ticking = true;
    tickAgain = false;
    try {
      const db = await deps.db();
      // A creation lease lasts minutes: looking for lapsed ones once a minute is soon enough.
      if (Date.now() - droppedAt >= ABANDONED_CHECK_MS) {
        droppedAt = Date.now();
        await dropAbandonedCreations(db);
      }
      while (!stopped && active.size < deps.settings.perInstance) {
        const batch = await claimBatch(db, owner, deps.settings.leaseMs, deps.settings.perUser);
        if (batch === null) break;
        active.add(batch.id);
        metrics().batchesRunningHere.inc();
        log.info("batch: running", { batchId: batch.id, operation: batch.operation, owner });
        void run(batch)
          .catch((error: unknown) => log.error("batch: runner failed", { batchId: batch.id, error: describeError(error) }))
          .finally(() => {
            active.delete(batch.id);
            metrics().batchesRunningHere.dec();
            void tick();
          });
      }
    } catch (error) {
      log.warn("batch: could not claim work", { error: describeError(error) });
    } finally {
      ticking = false;
    }
    if (tickAgain) await tick();
  };

  timer = setInterval(() => void tick(), deps.settings.pollMs);
  timer.unref();
  void tick();

  return {
    owner,
    wake: () => void tick(),
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      while (active.size > 0) await sleep(50);
    },
  };
};
