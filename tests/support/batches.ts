import type { Db } from "@/lib/db/client";
import { insertBatch } from "@/lib/batches/repository";

/**
 * A batch of publications lookups written straight to the database (no HTTP, no runner), for the
 * tests of the runner's statements: `inputs` profile URNs, first pages pending, no quota to meet.
 */
export const publicationsBatch = (db: Db, userId: string, options: { inputs: number; maxPages?: number; maxCredits?: number; maxCostCredits?: number }) =>
  insertBatch(db, {
    userId,
    operation: "get_user_publications",
    maxPages: options.maxPages ?? 1,
    maxCredits: options.maxCredits ?? options.inputs,
    maxCostCredits: options.maxCostCredits ?? options.inputs,
    inputs: Array.from({ length: options.inputs }, (_, index) => ({ input: `urn:${index}`, query: `urn=urn%3A${index}&page=1` })),
    retryOf: null,
    payer: null,
    webhookUrl: null,
    maxAgeS: null,
    quota: { maxOpenBatches: 1_000_000, maxOpenInputs: 100_000_000 },
  });
