import { BATCH_INPUT_MAX_CHARS, BATCH_REQUEST_MAX_INPUTS, batchRequestSchema } from "@/lib/batches/request";

/**
 * POST /api/batches's body: the batch request every edge reads (lib/batches/request.ts), worded
 * for the Batches page — the console answers `<field>: <sentence>` (lib/console-api/handler.ts).
 */
export const consoleBatchRequest = batchRequestSchema({
  operation: { notText: "Choose an operation.", empty: "Choose an operation." },
  input: { notText: "Each input must be a string.", tooLong: `An input is at most ${BATCH_INPUT_MAX_CHARS} characters.` },
  inputs: { notList: "inputs must be a list of strings.", empty: "Give at least one input.", tooMany: `Give at most ${BATCH_REQUEST_MAX_INPUTS} lines.` },
  pages: 'pages must be "first" or "all".',
  maxPages: { notWhole: "maxPages must be a whole number.", belowOne: "maxPages must be at least 1." },
  maxCredits: { notWhole: "maxCredits must be a whole number of credits.", negative: "maxCredits cannot be negative." },
});
