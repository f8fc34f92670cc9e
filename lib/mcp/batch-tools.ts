import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runBatchRequest, type BatchAnswer, type BatchDeps, type BatchRoute } from "@/lib/api/v1-batches";
import type { Registry } from "@/lib/operations";
import { errorResult, readEnvelope, successResult } from "./answers";
import { MCP_MAX_BYTES, type Json } from "./fit";
import { wholeNumberArg } from "./schemas";
import type { CallContext, McpTool } from "./tools";

/**
 * Batch tools: an agent starts a batch of lookups, follows it and reads its results in pages.
 * Each call goes through /v1/batches' own handler (lib/api/v1-batches.ts) with the agent's key —
 * the same checks, quotas, pacing and credits: the key that starts a batch pays for it.
 */
export type BatchToolDeps = Pick<BatchDeps, "db" | "wake"> & { publicUrl: string };

/** The batch tools' dependencies with the registry their batches name (the MCP handler's). */
type RegisteredBatchDeps = BatchToolDeps & Pick<BatchDeps, "operations">;

/** Results per batch_results page (records of one input each). */
export const BATCH_RESULTS_PAGE = 20;
const MAX_RESULTS_PAGE = 100;
/** The furthest offset: a batch has at most this many inputs (BATCH_MAX_INPUTS at its largest), so as many records. */
export const MAX_RESULTS_OFFSET = 1_000_000;
/** Room in a page's answer for what surrounds its records (the offsets, the list's brackets). */
const PAGE_FRAME_BYTES = 100;

/** Records, in order, as long as their JSON stays within `maxBytes` together; the first always (cut to size later if it alone is too large). */
export const recordsThatFit = (records: readonly Json[], maxBytes: number): number => {
  let bytes = PAGE_FRAME_BYTES;
  for (let index = 0; index < records.length; index += 1) {
    bytes += Buffer.byteLength(JSON.stringify(records[index])) + 1;
    if (bytes > maxBytes) return Math.max(1, index);
  }
  return records.length;
};

const call = async (
  route: BatchRoute,
  context: CallContext,
  batch: RegisteredBatchDeps,
  init: { method: "GET" | "POST"; body?: unknown; query?: Record<string, string>; resultsOffset?: number },
) =>
  runBatchRequest(
    route,
    {
      method: init.method,
      authorization: context.authorization,
      query: new URLSearchParams(init.query ?? {}),
      body: async () => (init.body === undefined ? null : JSON.stringify(init.body)),
      publicUrl: batch.publicUrl,
      clientAddress: context.clientAddress,
      resultsOffset: init.resultsOffset,
    },
    { ...context.deps, db: batch.db, wake: batch.wake, operations: batch.operations },
  );

const failed = (answer: BatchAnswer): CallToolResult =>
  errorResult(readEnvelope(answer.body), { costCredits: 0, creditsRemaining: undefined, retryAfterS: answer.headers["Retry-After"] });

/** An argument the tool cannot take: said by name, before any call is made. */
const badArgument = (message: string): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: `${message} Nothing was charged.` }],
});

const stringArg = (args: Record<string, unknown>, name: string): string => {
  const value = args[name];
  return typeof value === "string" ? value : "";
};

const describeBatch = (data: Json): string => {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return "Batch";
  const { id, status, done, total, creditsSpent } = data as Record<string, Json>;
  return `Batch ${String(id)}: ${String(status)}, ${String(done ?? 0)} of ${String(total)} inputs done, ${String(creditsSpent ?? 0)} credits spent.`;
};

const idInput: McpTool["inputSchema"] = {
  type: "object",
  properties: { id: { type: "string", description: "The batch id start_batch answered" } },
  required: ["id"],
  additionalProperties: false,
};

export const batchTools = (registry: Registry, deps: BatchToolDeps): McpTool[] => batchToolsOf(registry, { ...deps, operations: registry });

const batchToolsOf = (registry: Registry, batch: RegisteredBatchDeps): McpTool[] => [
  {
    name: "start_batch",
    title: "Start a batch of lookups",
    description:
      `Starts a batch: one operation (${registry.map((operation) => operation.id).join(", ")}) over many inputs, run on the server ` +
      "at the key's pace. Each found record is charged as the lookup tool would be; maxCredits caps the whole batch. " +
      "Starting is free. Follow it with batch_status, read it with batch_results.",
    inputSchema: {
      type: "object",
      properties: {
        operation: { type: "string", enum: registry.map((operation) => operation.id), description: "The lookup to run for each input" },
        inputs: { type: "array", items: { type: "string" }, minItems: 1, description: "One input per lookup: an event URL or id, a user id, a profile URN" },
        maxCredits: { type: "integer", minimum: 0, description: "The most credits the batch may spend (default: what it can cost)" },
        pages: { type: "string", enum: ["first", "all"], description: "Paged operations: the first page of each input, or all pages" },
        webhookUrl: { type: "string", description: "Where a signed batch.finished event is sent when it ends (optional)" },
      },
      required: ["operation", "inputs"],
      additionalProperties: false,
    },
    annotations: { title: "Start a batch", readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    call: async (args, context) => {
      const { pages, ...rest } = args;
      const body = pages === undefined ? rest : { ...rest, options: { pages } };
      const answer = await call({ kind: "collection" }, context, batch, { method: "POST", body });
      if (answer.status !== 202 && answer.status !== 200) return failed(answer);
      const data = readEnvelope(answer.body).data;
      return successResult(data, `${describeBatch(data)} Call batch_status with its id to follow it.`, null);
    },
  },
  {
    name: "batch_status",
    title: "Batch status",
    description: "A batch's status, progress and credits spent so far. Free.",
    inputSchema: idInput,
    annotations: { title: "Batch status", readOnlyHint: true, openWorldHint: false },
    call: async (args, context) => {
      const answer = await call({ kind: "batch", id: stringArg(args, "id") }, context, batch, { method: "GET" });
      if (answer.status !== 200) return failed(answer);
      const data = readEnvelope(answer.body).data;
      return successResult(data, describeBatch(data), null);
    },
  },
  {
    name: "batch_results",
    title: "Batch results",
    description:
      `A page of a batch's results: one record per input that was found, in input order, ${BATCH_RESULTS_PAGE} per page ` +
      `(limit up to ${MAX_RESULTS_PAGE}). The answer gives the offset of the next page. Free.`,
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The batch id" },
        offset: { type: "integer", minimum: 0, default: 0, description: "Records to skip" },
        limit: { type: "integer", minimum: 1, maximum: MAX_RESULTS_PAGE, default: BATCH_RESULTS_PAGE, description: "Records in this page" },
      },
      required: ["id"],
      additionalProperties: false,
    },
    annotations: { title: "Batch results", readOnlyHint: true, openWorldHint: false },
    call: async (args, context) => {
      const offsetArg = wholeNumberArg(args, "offset", { min: 0, max: MAX_RESULTS_OFFSET, default: 0 });
      if (!offsetArg.ok) return badArgument(offsetArg.message);
      const limitArg = wholeNumberArg(args, "limit", { min: 1, max: MAX_RESULTS_PAGE, default: BATCH_RESULTS_PAGE });
      if (!limitArg.ok) return badArgument(limitArg.message);
      const offset = offsetArg.value;
      const limit = limitArg.value;
      // Read from the page's first record on (found by the index), not from the batch's start.
      const answer = await call({ kind: "results", id: stringArg(args, "id") }, context, batch, {
        method: "GET",
        query: { format: "ndjson" },
        resultsOffset: offset,
      });
      if (answer.status !== 200 || answer.stream === undefined) return failed(answer);
      const records: Json[] = [];
      let more = false;
      let rest = "";
      const take = (line: string): boolean => {
        if (line === "") return true;
        if (records.length >= limit) {
          more = true;
          return false;
        }
        records.push(JSON.parse(line) as Json);
        return true;
      };
      read: for await (const chunk of answer.stream) {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) if (!take(line)) break read;
      }
      if (!more) take(rest);
      // A page too large for an agent keeps whole records only: the rest start at nextOffset.
      const taken = records.length;
      const shown = recordsThatFit(records, MCP_MAX_BYTES);
      records.length = shown;
      const nextOffset = more || shown < taken ? offset + shown : null;
      const data: Json = { records, offset, nextOffset };
      return successResult(
        data,
        shown < taken
          ? `${records.length} records from offset ${offset} (the page was cut to whole records that fit in ${MCP_MAX_BYTES / 1024} KB).`
          : `${records.length} records from offset ${offset}.`,
        nextOffset === null ? null : `More: call batch_results with {"id":"${stringArg(args, "id")}","offset":${nextOffset}}.`,
      );
    },
  },
];
