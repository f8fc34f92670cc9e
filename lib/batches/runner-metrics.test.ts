import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { exposition, metrics } from "@/lib/metrics/registry";
import { openForSuite, pgliteDatabase } from "@/tests/support/databases";
import { valueOf } from "@/tests/support/metric-deltas";
import { createKey } from "@/lib/keys/repository";
import { newUser } from "@/tests/support/usage";
import { sealBatchToken } from "./payer";
import { countOpenBatches, watchBatchQueue } from "./queue-gauge";
import { insertBatch } from "./repository";
import { createRunner, type Runner } from "./runner";
import type { BatchPageAnswer, BatchServices } from "./services";

/**
 * The batch metrics of a real runner on a real database: the batches this instance runs, its
 * lookups in flight, inputs done by outcome, and the service's queue read at scrape time. The
 * lookup is a stand-in for the /v1 pipeline that answers by input and can be held open.
 */
const database = pgliteDatabase();
const db = openForSuite(database);
let runner: Runner | undefined;
const unwatch: Array<() => void> = [];

afterEach(async () => {
  await runner?.stop();
  runner = undefined;
  for (const done of unwatch.splice(0)) done();
});

/** A /v1 batch of get_user_publications over `inputs`, paid by a fresh key. */
const batchOf = async (inputs: string[]) => {
  const user = await newUser(db(), `batch-metrics-${crypto.randomUUID()}@example.test`);
  const { key, token } = await createKey(db(), "batch-metrics-secret-batch-metrics-secret-0", {
    name: "batch metrics",
    ownerId: user.id,
    credits: 1000,
    qpsLimit: 1000,
    expiresAt: null,
  });
  const id = crypto.randomUUID();
  return insertBatch(db(), {
    id,
    userId: user.id,
    operation: "get_user_publications",
    maxPages: 1,
    maxCredits: 100,
    maxCostCredits: 100,
    inputs: inputs.map((input) => ({ input, query: `urn=${encodeURIComponent(input)}&page=1` })),
    retryOf: null,
    payer: { keyId: key.id, tokenSealed: sealBatchToken(id, token) },
    webhookUrl: null,
    maxAgeS: null,
    quota: { maxOpenBatches: 1000, maxOpenInputs: 1_000_000 },
  });
};

const answers: Record<string, BatchPageAnswer> = {
  "urn:found": { status: 200, creditsCharged: 1, requestId: crypto.randomUUID(), message: null, data: { page: 1, total: 0, has_more: false, data: [] } },
  "urn:missing": { status: 404, creditsCharged: 0, requestId: crypto.randomUUID(), message: "Profile not found", data: null },
  "urn:broken": { status: 500, creditsCharged: 0, requestId: crypto.randomUUID(), message: "Internal server error", data: null },
};

const start = (lookup: BatchServices["lookup"]) => {
  runner = createRunner({
    db: async () => db(),
    services: async () => ({ lookup, connector: { name: "none", lookup: () => Promise.reject(new Error("not here")), clearCache: () => undefined }, cursors: { encode: () => "", decode: () => null }, eventSiteHosts: [] }),
    settings: {
      leaseMs: 30_000,
      perInstance: 1,
      perUser: 1,
      concurrency: undefined,
      lookupsPerInstance: 8,
      pollMs: 50,
      instanceName: "batch-metrics",
      attemptSettleMs: 1000,
    },
  });
  return runner;
};

const until = async (check: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached in 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const statusOf = async (database: Db, batchId: string) =>
  (await database.query<{ status: string }>("SELECT status FROM batches WHERE id = $1", [batchId]))[0]?.status;

describe("batch metrics", () => {
  it("shows the batch running here and its lookups in flight, then counts each input done by outcome", async () => {
    const { batchesRunningHere, batchLanesInFlight, batchInputsDone } = metrics();
    const before = {
      running: await valueOf(batchesRunningHere),
      lanes: await valueOf(batchLanesInFlight),
      ok: await valueOf(batchInputsDone, { outcome: "ok" }),
      failed: await valueOf(batchInputsDone, { outcome: "failed" }),
    };
    let open: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      open = resolve;
    });
    const batch = await batchOf(["urn:found", "urn:missing", "urn:broken"]);
    start(async (_operation, page) => {
      await held;
      const answer = answers[page.query.get("urn") ?? ""];
      if (!answer) throw new Error("unexpected input");
      return answer;
    });
    await until(async () => (await valueOf(batchLanesInFlight)) === before.lanes + 3, "three lookups in flight");
    expect(await valueOf(batchesRunningHere)).toBe(before.running + 1);
    open();
    await until(async () => (await statusOf(db(), batch.id)) === "done", "the batch done");
    await until(async () => (await valueOf(batchesRunningHere)) === before.running, "the batch no longer running here");
    expect(await valueOf(batchLanesInFlight)).toBe(before.lanes);
    // 200 and 404 are answers (ok); a 500 is a failed input.
    expect((await valueOf(batchInputsDone, { outcome: "ok" })) - before.ok).toBe(2);
    expect((await valueOf(batchInputsDone, { outcome: "failed" })) - before.failed).toBe(1);
  });

  it("reads the service's queued and running batches from the database at scrape time, a few seconds cached", async () => {
    let clock = 0;
    unwatch.push(watchBatchQueue(async () => db(), () => clock));
    const counts = await countOpenBatches(db());
    await exposition();
    const gauge = metrics().batches;
    expect(await valueOf(gauge, { state: "queued" })).toBe(counts.queued);
    expect(await valueOf(gauge, { state: "running" })).toBe(counts.running);

    await batchOf(["urn:one"]);
    await exposition();
    // Within the cache: the figure of the last read.
    expect(await valueOf(gauge, { state: "queued" })).toBe(counts.queued);
    clock += 5000;
    await exposition();
    expect(await valueOf(gauge, { state: "queued" })).toBe(counts.queued + 1);
  });
});
