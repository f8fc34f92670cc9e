import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { newUser } from "@/tests/support/usage";
import { abandonAttempt, beginAttempts, claimBatch, createAttemptRecorder, finishBatch, stopBatch, type AttemptResult, type OpenItem } from "./lease";
import { insertBatch } from "./repository";

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
          const batch = await insertBatch(db(), {
            userId: user.id,
            operation: "get_user_publications",
            maxPages,
            maxCredits: Math.min(maxCredits, maxCost),
            maxCostCredits: maxCost,
            inputs: Array.from({ length: inputs }, (_, index) => ({ input: `urn:${index}`, query: `urn=urn%3A${index}&page=1` })),
            retryOf: null,
            payer: null,
            webhookUrl: null,
            maxAgeS: null,
            quota: { maxOpenBatches: 1_000_000, maxOpenInputs: 100_000_000 },
          });
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
