import { z } from "zod";
import { batchOperations } from "./operations";

/**
 * The body of a request that creates a batch, written once: the console's POST /api/batches reads
 * `batchRequestSchema`, POST /v1/batches `apiBatchRequestSchema` (the same fields, plus the two
 * only scripts set), and the OpenAPI document's BatchRequest is the JSON Schema of the latter.
 * The rules are the same everywhere; each edge words a broken rule in its own voice, so the
 * schemas take the edge's sentences (docs/architecture.md "Errors": only an edge chooses the words).
 * What the fields mean beyond their shape (a known operation, inputs it can look up, a cap that
 * covers one lookup, a webhook address) is checked by createBatch (./batches.ts).
 */

/** Lines a request may carry, before duplicates and refused lines are taken out (BATCH_MAX_INPUTS applies after). */
export const BATCH_REQUEST_MAX_INPUTS = 100_000;
export const BATCH_INPUT_MAX_CHARS = 4096;
/** The oldest cached answer a batch may accept: a year, as for a lookup's Cache-Control (lib/api/freshness.ts). */
export const BATCH_MAX_AGE_LIMIT_S = 31_536_000;
export const BATCH_WEBHOOK_URL_MAX_CHARS = 2000;

/** The edge's sentence for each rule of the fields every edge takes. */
export type BatchRequestWording = {
  operation: { notText: string; empty: string };
  input: { notText: string; tooLong: string };
  inputs: { notList: string; empty: string; tooMany: string };
  pages: string;
  maxPages: { notWhole: string; belowOne: string };
  maxCredits: { notWhole: string; negative: string };
};

/** /v1's sentences, also for the fields only it takes. */
export type ApiBatchRequestWording = BatchRequestWording & {
  maxAgeS: { notWhole: string; negative: string; tooLarge: string };
  webhookUrl: { notText: string; tooLong: string };
};

/** "a, b, c or d" */
const listOf = (words: readonly string[]): string =>
  words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1) ?? ""}`;

/** The operation ids a batch may name, in registry order. */
export const batchOperationIds = (): string[] => batchOperations().map((operation) => operation.id);

/** The fields every edge takes; unknown fields are dropped. */
export const batchRequestSchema = (wording: BatchRequestWording) =>
  z.object({
    operation: z
      .string({ error: wording.operation.notText })
      .min(1, wording.operation.empty)
      .describe(`The operation id: ${listOf(batchOperationIds())}.`),
    inputs: z
      .array(z.string({ error: wording.input.notText }).max(BATCH_INPUT_MAX_CHARS, wording.input.tooLong), { error: wording.inputs.notList })
      .min(1, wording.inputs.empty)
      .max(BATCH_REQUEST_MAX_INPUTS, wording.inputs.tooMany)
      .describe(`One value of the operation's main parameter per entry: 1 to ${BATCH_REQUEST_MAX_INPUTS.toLocaleString("en-US")} of them.`),
    options: z
      .object({
        pages: z
          .enum(["first", "all"], { error: wording.pages })
          .default("first")
          .describe("Paged operations: the first page, or all pages up to maxPages."),
        maxPages: z.int({ error: wording.maxPages.notWhole }).min(1, wording.maxPages.belowOne).optional(),
      })
      .optional(),
    maxCredits: z.int({ error: wording.maxCredits.notWhole }).min(0, wording.maxCredits.negative),
  });

/**
 * POST /v1/batches: the fields above, where maxCredits may be left out (the batch's most possible
 * cost), plus a freshness bound and a webhook; an unknown field is refused, not dropped.
 */
export const apiBatchRequestSchema = (wording: ApiBatchRequestWording) => {
  const { shape } = batchRequestSchema(wording);
  return z.strictObject({
    ...shape,
    options: z
      .strictObject({
        ...shape.options.unwrap().shape,
        maxAgeS: z
          .int({ error: wording.maxAgeS.notWhole })
          .min(0, wording.maxAgeS.negative)
          .max(BATCH_MAX_AGE_LIMIT_S, wording.maxAgeS.tooLarge)
          .optional()
          .describe("Oldest cached upstream answer accepted, in seconds (0: always fresh, charged as a miss)."),
      })
      .optional(),
    maxCredits: shape.maxCredits.optional().describe("Cap on the credits the batch may spend; default: its most possible cost."),
    webhookUrl: z
      .string({ error: wording.webhookUrl.notText })
      .max(BATCH_WEBHOOK_URL_MAX_CHARS, wording.webhookUrl.tooLong)
      .nullable()
      .optional()
      .meta({ description: "Where the batch.finished event goes; default: the key's alert webhook.", format: "uri" }),
  });
};
