import { runLookup, type PipelineResult } from "@/lib/api/pipeline";
import { summariseQuery } from "@/lib/api/params";
import type { Db } from "@/lib/db/client";
import { consoleToken } from "@/lib/keys/manage";
import { describeError, log } from "@/lib/log";
import type { Services } from "@/lib/services";
import { batchOperationById, type BatchOperation } from "./operations";
import {
  abandonAttempt,
  beginAttempt,
  chargedUsageSince,
  claimBatch,
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
} from "./lease";
import type { BatchRow } from "./repository";

/**
 * Runs batches in the server process: claims one when it has room, looks its pages up one after
 * another through the /v1 pipeline with the owner's console key, paced under the key's
 * per-second limit, and lets go of it when it is done, paused, stopped or taken over.
 */
export type RunnerSettings = {
  leaseMs: number;
  perInstance: number;
  perUser: number;
  /** How often an idle runner looks for work (a new batch also wakes it). */
  pollMs: number;
  /** Names this instance in lease owners: "host:port". */
  instanceName: string;
  /**
   * The longest a lookup can take (database and provider timeouts included). An attempt left in
   * flight is judged only once it is this old: its lookup, if still running somewhere, has ended.
   */
  attemptSettleMs: number;
};

export type RunnerDeps = { db: () => Promise<Db>; services: () => Promise<Services>; settings: RunnerSettings };

export type Runner = { wake(): void; stop(): Promise<void>; owner: string };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Credentials = { keyId: string; token: string; qpsLimit: number };

/** Per key, the earliest moment of its next lookup from this process. */
const nextSlot = new Map<string, number>();

/** 10 % under the limit, so that the limiter's one-second windows never see one request too many. */
const pace = async (keyId: string, qpsLimit: number): Promise<void> => {
  const spacingMs = 1100 / qpsLimit;
  const now = Date.now();
  const at = Math.max(now, nextSlot.get(keyId) ?? 0);
  nextSlot.set(keyId, at + spacingMs);
  if (at > now) await sleep(at - now);
};

const credentialsFor = async (db: Db, userId: string): Promise<Credentials | null> => {
  const credentials = await consoleToken(db, userId);
  if (!credentials) return null;
  const rows = await db.query<{ qps_limit: number }>("SELECT qps_limit FROM api_keys WHERE id = $1", [credentials.keyId]);
  const qpsLimit = rows[0]?.qps_limit;
  return qpsLimit === undefined ? null : { ...credentials, qpsLimit: Number(qpsLimit) };
};

const envelopeOf = (body: string): { message?: unknown; data?: unknown } => {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
};

const outcomeOf = (status: number): InputOutcome => (status === 200 ? "succeeded" : status === 404 ? "not_found" : "failed");

/** What a finished lookup leaves in the batch: the page's answer and whether another page follows. */
const resultOf = (
  operation: BatchOperation,
  batch: BatchRow,
  item: OpenItem,
  answer: { status: number; creditsCharged: number; requestId: string | null; message: string | null; data: unknown },
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

const fromPipeline = (result: PipelineResult) => {
  const envelope = envelopeOf(result.body);
  return {
    status: result.status,
    creditsCharged: Number(result.headers["X-Credits-Charged"] ?? 0),
    requestId: result.requestId,
    message: typeof envelope.message === "string" ? envelope.message : null,
    data: envelope.data ?? null,
  };
};

export const createRunner = (deps: RunnerDeps): Runner => {
  // Which instance holds a batch, readable by an operator: host, port and process, then a nonce.
  const owner = `${deps.settings.instanceName}:${process.pid}:${crypto.randomUUID()}`;
  const active = new Set<string>();
  let stopped = false;
  let ticking = false;
  let timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Attempts left in flight by a runner that died: charged if the pipeline wrote a 200 usage
   * record for them (recorded as done, the record re-read from the source at no charge), else
   * put back in line. Only runs on a freshly claimed batch, once its previous runner's lookup
   * must have ended.
   */
  const reconcile = async (db: Db, services: Services, batch: BatchRow, operation: BatchOperation) => {
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
      await recordAttempt(db, batch.id, item, item.attempt_id, resultOf(operation, batch, item, answer));
      log.info("batch: recovered a charged lookup after a restart", { batchId: batch.id, requestId: charged.request_id });
    }
  };

  const run = async (batch: BatchRow): Promise<void> => {
    const db = await deps.db();
    const services = await deps.services();
    const { leaseMs } = deps.settings;
    const operation = batchOperationById(batch.operation);
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
    try {
      await reconcile(db, services, batch, operation);
      let credentials: { value: Credentials | null; readAt: number } = { value: null, readAt: 0 };
      while (held && !stopped) {
        // The user may switch console keys while the batch runs: read it again now and then.
        if (Date.now() - credentials.readAt > 5000) credentials = { value: await credentialsFor(db, batch.user_id), readAt: Date.now() };
        const key = credentials.value;
        if (key === null) {
          if ((await nextOpenItem(db, batch.id)) === null) await finishBatch(db, batch.id, owner);
          else await stopBatch(db, batch.id, owner, "key");
          return;
        }
        await pace(key.keyId, key.qpsLimit);
        const attemptId = crypto.randomUUID();
        const start = await beginAttempt(db, {
          batchId: batch.id,
          owner,
          leaseMs,
          attemptId,
          keyId: key.keyId,
          costCredits: operation.costCredits,
        });
        if (start.kind === "finished") {
          await finishBatch(db, batch.id, owner);
          return;
        }
        if (start.kind === "cap") {
          await stopBatch(db, batch.id, owner, "cap");
          return;
        }
        if (start.kind === "lost") return;
        const item = start.item;
        const answer = fromPipeline(
          await runLookup(operation, { authorization: `Bearer ${key.token}`, query: new URLSearchParams(item.query), clientAddress: null }, services),
        );
        if (answer.status === 429 || answer.status === 402 || answer.status === 401) {
          await abandonAttempt(db, batch.id, item, attemptId);
          if (answer.status === 429) {
            await sleep(1000);
            continue;
          }
          if (answer.status === 401) credentials = { value: null, readAt: 0 };
          await stopBatch(db, batch.id, owner, answer.status === 402 ? "credits" : "key");
          return;
        }
        await recordAttempt(db, batch.id, item, attemptId, resultOf(operation, batch, item, answer));
      }
    } finally {
      clearInterval(heartbeat);
      await releaseLease(db, batch.id, owner).catch(() => undefined);
    }
  };

  const tick = async () => {
    if (ticking || stopped) return;
    ticking = true;
    try {
      const db = await deps.db();
      while (!stopped && active.size < deps.settings.perInstance) {
        const batch = await claimBatch(db, owner, deps.settings.leaseMs, deps.settings.perUser);
        if (batch === null) break;
        active.add(batch.id);
        log.info("batch: running", { batchId: batch.id, operation: batch.operation, owner });
        void run(batch)
          .catch((error: unknown) => log.error("batch: runner failed", { batchId: batch.id, error: describeError(error) }))
          .finally(() => {
            active.delete(batch.id);
            void tick();
          });
      }
    } catch (error) {
      log.warn("batch: could not claim work", { error: describeError(error) });
    } finally {
      ticking = false;
    }
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
