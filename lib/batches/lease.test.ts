import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { newUser } from "@/tests/support/usage";
import { abandonAttempt, beginAttempts, claimBatch, createAttemptRecorder, dropAbandonedCreations, finishBatch, releaseAllLeases, stopBatch, type AttemptResult, type OpenItem } from "./lease";
import { publicationsBatch } from "@/tests/support/batches";
import { CREATING_OWNER } from "./repository";
import { createRunner } from "./runner";

/**
 * The cap under concurrency, property-tested on the runner's own statements: random batches
 * (inputs, pages, cost, cap) looked up by 16 lanes at once with random outcomes (found, not
 * found, provider failure, a 429 put back in line). Whatever the interleaving, the credits spent
 * never pass the cap, always equal the sum of the charged lookups, and nothing stays reserved;
 * a batch stopped at the cap had no room for one more lookup.
 */
type Outcome = "found" | "not_found" | "failure" | "rate_limited";

const LANES = 16;

describe.each(await testDatabases())("batch lease statements on $name", (database) => {
  const db = openForSuite(database);

  it("never spends beyond the cap, and spends exactly what was charged, with 16 lookups in flight", async () => {
    const user = await newUser(db(), `lease-${Date.now()}@example.test`);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          inputs: fc.integer({ min: 1, max: 20 }),
          maxPages: fc.integer({ min: 1, max: 3 }),
          cost: fc.constantFrom(1, 2, 4),
          capShare: fc.double({ min: 0, max: 1.2, noNaN: true }),
          // A 429 puts the page back in line: a list of nothing but 429s would never end (the runner
          // paces, then asks again); at least one other outcome lets every page end.
          // Pages taken per statement, as the runner takes as many as it has free lanes.
          claimSize: fc.integer({ min: 1, max: 6 }),
          outcomes: fc
            .array(fc.constantFrom<Outcome>("found", "found", "not_found", "failure", "rate_limited"), { minLength: 1, maxLength: 64 })
            .filter((list) => list.some((outcome) => outcome !== "rate_limited")),
        }),
        async ({ inputs, maxPages, cost, capShare, claimSize, outcomes }) => {
          const maxCost = inputs * maxPages * cost;
          const maxCredits = Math.max(cost, Math.floor(maxCost * capShare));
          const batch = await publicationsBatch(db(), user.id, { inputs, maxPages, maxCredits: Math.min(maxCredits, maxCost), maxCostCredits: maxCost });
          const owner = `test:${crypto.randomUUID()}`;
          // Only this batch is runnable for this owner: older test batches have ended.
          const claimed = await claimBatch(db(), owner, 60_000, 1000);
          expect(claimed?.id).toBe(batch.id);
          // As the runner does it: one loop starts lookups, up to 16 run at once and record.
          let turn = 0;
          let ending: "cap" | "finished" | null = null;
          let askedAgain = false;
          const lanes = new Set<Promise<void>>();
          // Answers ending in one turn are written by one statement, as the runner writes them.
          const record = createAttemptRecorder(db(), batch.id);
          const lookup = async (item: OpenItem, attemptId: string) => {
            const outcome = outcomes[turn++ % outcomes.length] ?? "found";
            if (outcome === "rate_limited") {
              await abandonAttempt(db(), batch.id, item, attemptId);
              return;
            }
            const found = outcome === "found";
            const next = found && item.page < maxPages ? `urn=x&page=${item.page + 1}` : null;
            const result: AttemptResult = {
              httpStatus: found ? 200 : outcome === "not_found" ? 404 : 500,
              creditsCharged: found ? cost : 0,
              requestId: crypto.randomUUID(),
              message: null,
              summary: null,
              data: null,
              nextQuery: next,
              outcome: next !== null ? null : found ? "succeeded" : outcome === "not_found" ? "not_found" : "failed",
            };
            expect(await record({ item, attemptId, result })).toBe(true);
            const state = await batchState(batch.id);
            expect(state.spent).toBeLessThanOrEqual(state.max);
          };
          while (ending === null) {
            if (lanes.size >= LANES) {
              await Promise.race(lanes);
              continue;
            }
            const count = Math.min(claimSize, LANES - lanes.size);
            const start = await beginAttempts(db(), { batchId: batch.id, owner, leaseMs: 60_000, keyId: "k", costCredits: cost, count });
            if (start.kind === "lost") throw new Error("lease lost");
            if (start.kind !== "started") {
              if (lanes.size > 0) await Promise.race(lanes);
              else if (!askedAgain) askedAgain = true;
              else if (start.kind === "finished" || start.kind === "cap") ending = start.kind;
              continue;
            }
            askedAgain = false;
            expect(start.items.length).toBeLessThanOrEqual(count);
            for (const item of start.items) {
              const lane: Promise<void> = lookup(item, item.attempt_id).finally(() => lanes.delete(lane));
              lanes.add(lane);
            }
          }
          await Promise.all(lanes);
          if (ending === "finished") expect(await finishBatch(db(), batch.id, owner)).toBe(true);
          else await stopBatch(db(), batch.id, owner, "cap");

          const state = await batchState(batch.id);
          expect(state.spent).toBeLessThanOrEqual(state.max);
          expect(state.spent).toBe(state.charged);
          expect(state.reserved).toBe(0);
          expect(state.inFlight).toBe(0);
          if (state.status === "stopped") expect(state.spent + cost).toBeGreaterThan(state.max);
          else expect(state.status).toBe("done");
        },
      ),
      { numRuns: 12 },
    );
  }, 240_000);

  it("writes a batch's inputs before it can run, and drops one whose writer died half-way", async () => {
    const user = await newUser(db(), `creating-${Date.now()}@example.test`);
    const newBatch = () => publicationsBatch(db(), user.id, { inputs: 2_500 });
    const counts = async (batchId: string) => {
      const [row] = await db().query<{ batches: string; inputs: string; items: string; owner: string | null }>(
        `SELECT (SELECT count(*) FROM batches WHERE id = $1)::text AS batches, (SELECT count(*) FROM batch_inputs WHERE batch_id = $1)::text AS inputs,
           (SELECT count(*) FROM batch_items WHERE batch_id = $1)::text AS items, (SELECT lease_owner FROM batches WHERE id = $1) AS owner`,
        [batchId],
      );
      return { batches: Number(row?.batches), inputs: Number(row?.inputs), items: Number(row?.items), owner: row?.owner ?? null };
    };
    const written = await newBatch();
    expect(await counts(written.id)).toEqual({ batches: 1, inputs: 2_500, items: 2_500, owner: null });
    await db().query("UPDATE batches SET status = 'canceled' WHERE id = $1", [written.id]);

    // As if its writer died after the first chunk: marked as being created, its lease lapsed.
    const halfWritten = await newBatch();
    await db().query("DELETE FROM batch_items WHERE batch_id = $1 AND position > 1000", [halfWritten.id]);
    await db().query(`UPDATE batches SET lease_owner = $2, lease_expires_at = now() - interval '1 second' WHERE id = $1`, [halfWritten.id, CREATING_OWNER]);
    expect((await claimBatch(db(), `test:${crypto.randomUUID()}`, 60_000, 1000))?.id).not.toBe(halfWritten.id);
    await dropAbandonedCreations(db());
    expect(await counts(halfWritten.id)).toEqual({ batches: 0, inputs: 0, items: 0, owner: null });

    // At an embedded start, one still marked as being created goes whatever its lease says.
    const interrupted = await newBatch();
    await db().query(`UPDATE batches SET lease_owner = $2, lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [interrupted.id, CREATING_OWNER]);
    await releaseAllLeases(db());
    expect((await counts(interrupted.id)).batches).toBe(0);
  });


  // The runner looks for work when woken (a batch was created or resumed), not only at its poll.
  // Its database is handed out one look at a time here, so a wake can be made to arrive while it
  // is looking: the look then in progress may have missed the new batch, so it must look again.
  it("the runner looks for work again when a wake arrives while it is looking (a batch created then does not wait for the next poll)", async () => {
    const handOuts: (() => void)[] = [];
    const runner = createRunner({
      db: () =>
        new Promise<Db>((resolve) => {
          handOuts.push(() => resolve(db()));
        }),
      services: () => Promise.reject(new Error("no batch is run here")),
      settings: {
        leaseMs: 30_000,
        // Looks without claiming: this file's other batches stay where they are.
        perInstance: 0,
        perUser: 2,
        concurrency: undefined,
        lookupsPerInstance: 256,
        // Never within this test: only wakes make it look.
        pollMs: 3_600_000,
        instanceName: "test:0",
        attemptSettleMs: 1000,
      },
    });
    const looks = async (count: number) => {
      for (let waited = 0; handOuts.length < count && waited < 100; waited += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      return handOuts.length;
    };
    try {
      // The first look (at start) waits for its database; a batch is created and wakes the runner.
      expect(await looks(1)).toBe(1);
      runner.wake();
      handOuts[0]?.();
      expect(await looks(2)).toBe(2);
      handOuts[1]?.();
    } finally {
      await runner.stop();
    }
  });

  const batchState = async (batchId: string) => {
    const rows = await db().query<{ status: string; spent: string; max: string; reserved: string; charged: string; in_flight: string }>(
      `SELECT b.status, b.credits_spent::text AS spent, b.max_credits::text AS max, b.credits_reserved::text AS reserved,
         (SELECT COALESCE(sum(credits_charged), 0) FROM batch_items WHERE batch_id = b.id)::text AS charged,
         (SELECT count(*) FROM batch_items WHERE batch_id = b.id AND state = 'in_flight')::text AS in_flight
       FROM batches b WHERE b.id = $1`,
      [batchId],
    );
    const row = rows[0];
    if (!row) throw new Error("no batch");
    return {
      status: row.status,
      spent: Number(row.spent),
      max: Number(row.max),
      reserved: Number(row.reserved),
      charged: Number(row.charged),
      inFlight: Number(row.in_flight),
    };
  };
});
