import { describe, expect, it } from "vitest";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { publicationsBatch } from "@/tests/support/batches";
import { newUser } from "@/tests/support/usage";
import { beginAttempts, claimBatch, recordAttempts, type AttemptResult } from "./lease";
import { batchOperationById } from "./operations";
import { firstResultPosition, ndjsonChunks } from "./results";

const lines = async (chunks: AsyncGenerator<string>): Promise<string[]> => {
  let text = "";
  for await (const chunk of chunks) text += chunk;
  return text.split("\n").filter((line) => line !== "");
};

describe.each(await testDatabases())("batch results on $name", (database) => {
  const db = openForSuite(database);

  it("reads the NDJSON records from any offset, found by the index, the same as reading from the start and skipping", async () => {
    const operation = batchOperationById("get_user_publications");
    if (!operation) throw new Error("no publications operation");
    const user = await newUser(db(), `results-${Date.now()}@example.test`);
    const batch = await publicationsBatch(db(), user.id, { inputs: 30 });
    const owner = `test:${crypto.randomUUID()}`;
    expect((await claimBatch(db(), owner, 60_000, 1000))?.id).toBe(batch.id);
    const started = await beginAttempts(db(), { batchId: batch.id, owner, leaseMs: 60_000, keyId: "k", costCredits: 1, count: 30 });
    if (started.kind !== "started") throw new Error(`no pages started: ${started.kind}`);
    // Every third input not found: the records are the other twenty, in input order.
    const attempts = started.items.map((item) => {
      const found = item.position % 3 !== 0;
      const result: AttemptResult = {
        httpStatus: found ? 200 : 404,
        creditsCharged: found ? 1 : 0,
        requestId: crypto.randomUUID(),
        message: null,
        summary: null,
        data: found ? JSON.stringify({ page: 1, total: 0, has_more: false, data: [] }) : null,
        nextQuery: null,
        outcome: found ? "succeeded" : "not_found",
      };
      return { item, attemptId: item.attempt_id, result };
    });
    expect(await recordAttempts(db(), batch.id, attempts)).toEqual(attempts.map(() => true));

    const all = await lines(ndjsonChunks(db(), batch.id, operation));
    expect(all).toHaveLength(20);
    for (const offset of [0, 1, 7, 19, 20, 25]) {
      const from = await lines(ndjsonChunks(db(), batch.id, operation, await firstResultPosition(db(), batch.id, offset)));
      expect(from, `offset ${offset}`).toEqual(all.slice(offset));
    }
  });
});
