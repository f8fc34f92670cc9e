import { convert, schemaRef } from "./json-schema";
import { messages } from "@/lib/api/errors";
import { v1BatchRequest } from "@/lib/api/v1-batches";
import { eventDetailsIdOperation } from "@/lib/operations/event-details-id/descriptor";
import { EXAMPLE_REQUEST_ID, errorEnvelope, errorResponse, headerRefs, sharedErrorMessages, unauthorizedResponse } from "./responses";
import type { OperationObject, ParameterObject, ResponseObject, SchemaObject } from "./types";

/**
 * /v1/batches in the OpenAPI document: batches for scripts with an API key
 * (docs/decisions.md "Bulk, agents and keys"). The key that creates a batch pays for its lookups
 * (each charged as the lookup would be) and paces them; control calls are free and count towards
 * its per-second limit.
 */
export const BATCHES_PATH = "/v1/batches";
export const BATCH_PATH = "/v1/batches/{id}";
export const BATCH_RESULTS_PATH = "/v1/batches/{id}/results";
export const batchActionPath = (action: "pause" | "resume" | "cancel") => `/v1/batches/{id}/${action}`;

const EXAMPLE_ID = "0b7f4c52-3f7e-4a8e-9d0c-2f5b1d6a9e41";

const status: SchemaObject = { type: "string", enum: ["queued", "running", "paused", "done", "stopped", "canceled"] };

/**
 * The request body, as POST /v1/batches validates it (lib/batches/request.ts). The document's
 * schemas use no array-length keywords; the inputs' count is in their description.
 */
const batchRequest = convert(v1BatchRequest.meta({ id: "BatchRequest" }), { io: "input", leaveOut: ["minItems", "maxItems"] });

export const batchSchemas: Record<string, SchemaObject> = {
  ...batchRequest.defs,
  BatchCreated: {
    type: "object",
    required: ["id", "status", "total", "rejected", "maxCostCredits"],
    properties: {
      id: { type: "string", format: "uuid" },
      status,
      total: { type: "integer", description: "Inputs accepted." },
      rejected: { type: "array", items: { type: "object", required: ["input", "reason"], properties: { input: { type: "string" }, reason: { type: "string" } } } },
      maxCostCredits: { type: "integer", description: "The most the batch can cost: every input, every page." },
      maxCredits: { type: "integer" },
      duplicates: { type: "integer" },
      resultsUrl: { type: "string", format: "uri" },
    },
  },
  Batch: {
    type: "object",
    required: ["id", "operation", "status", "total", "done", "succeeded", "notFound", "failed", "creditsSpent", "maxCredits"],
    properties: {
      id: { type: "string", format: "uuid" },
      operation: { type: "string" },
      status,
      stopReason: { type: ["string", "null"], enum: ["cap", "credits", "key", null] },
      total: { type: "integer" },
      done: { type: "integer" },
      succeeded: { type: "integer" },
      notFound: { type: "integer" },
      failed: { type: "integer" },
      creditsSpent: { type: "integer" },
      maxCredits: { type: "integer" },
      maxCostCredits: { type: "integer" },
      maxPages: { type: "integer" },
      maxAgeS: { type: ["integer", "null"] },
      etaSeconds: { type: ["integer", "null"] },
      createdAt: { type: "string", format: "date-time" },
      startedAt: { type: ["string", "null"], format: "date-time" },
      finishedAt: { type: ["string", "null"], format: "date-time" },
      keyId: { type: ["string", "null"] },
      resultsUrl: { type: "string", format: "uri" },
      webhook: {
        type: ["object", "null"],
        description: "The last batch.finished delivery.",
        properties: {
          status: { type: "string", enum: ["pending", "delivered", "failed"] },
          attempts: { type: "integer" },
          lastStatus: { type: ["integer", "null"] },
          deliveredAt: { type: ["string", "null"], format: "date-time" },
        },
      },
    },
  },
  BatchList: { type: "object", required: ["batches"], properties: { batches: { type: "array", items: schemaRef("Batch") } } },
  BatchCreatedEnvelope: envelopeOf("BatchCreated"),
  BatchEnvelope: envelopeOf("Batch"),
  BatchListEnvelope: envelopeOf("BatchList"),
  ErrorEnvelope400Batch: freeTextError(400, "^(Missing required parameter|Invalid parameter): "),
  ErrorEnvelope403Batch: errorEnvelope(403, sharedErrorMessages[403]),
  // The per-second limit, or (creating or resuming a batch) the owner's open-batch quota, whose sentence says how much is open.
  ErrorEnvelope429Batch: freeTextError(429, "^(qps limit exceeded|You have |This key has )"),
  ErrorEnvelope404Batch: errorEnvelope(404, ["Batch not found"]),
  ErrorEnvelope409Batch: freeTextError(409, "cannot be"),
  ErrorEnvelope413Batch: errorEnvelope(413, ["Request body too large (at most 16 MiB)"]),
};

/** An error whose message names the field or state at fault: a pattern rather than a list. */
function freeTextError(code: number, pattern: string): SchemaObject {
  return {
    type: "object",
    required: ["code", "message", "data", "requestId"],
    additionalProperties: false,
    properties: {
      code: { type: "integer", const: code },
      message: { type: "string", pattern },
      data: { type: "null" },
      requestId: { type: "string", format: "uuid" },
    },
  };
}

function envelopeOf(dataId: string): SchemaObject {
  return {
    type: "object",
    required: ["code", "message", "data", "requestId"],
    additionalProperties: false,
    properties: {
      code: { type: "integer", const: 0 },
      message: { type: "string", const: "success" },
      data: schemaRef(dataId),
      requestId: { type: "string", format: "uuid" },
    },
  };
}

const idParameter: ParameterObject = { name: "id", in: "path", required: true, description: "The batch id.", schema: { type: "string", format: "uuid" }, example: EXAMPLE_ID };

const success = (description: string, envelopeId: string, data: SchemaObject): ResponseObject => ({
  description,
  headers: headerRefs(["X-Request-Id"]),
  content: {
    "application/json": {
      schema: schemaRef(envelopeId),
      examples: { success: { summary: description, value: { code: 0, message: "success", data, requestId: EXAMPLE_REQUEST_ID } } },
    },
  },
});

/** The examples' batch: event ids, so the operation that looks an event up by its id (4 credits a lookup). */
const exampleBatch = {
  id: EXAMPLE_ID,
  operation: eventDetailsIdOperation.id,
  status: "running",
  total: 200,
  done: 120,
  succeeded: 110,
  notFound: 10,
  failed: 0,
  creditsSpent: 440,
  maxCredits: 800,
};

/** The answers every batch call may give; `extra` adds its own (and may replace one, as creating a batch does 429's). */
const common = (extra: Record<string, ResponseObject>): OperationObject["responses"] => ({
  "401": unauthorizedResponse(),
  "403": errorResponse(
    "The key may not be used from this address, or (creating a batch) may not call the batch's operation.",
    "ErrorEnvelope403Batch",
    403,
    sharedErrorMessages[403],
    ["X-Request-Id"],
  ),
  "429": errorResponse(
    "The key's per-second limit is exceeded (control calls count towards it). Retry after Retry-After seconds.",
    "ErrorEnvelope429",
    429,
    sharedErrorMessages[429],
    ["X-Request-Id", "RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"],
  ),
  "500": errorResponse("Any other failure; details stay in the server log under the requestId.", "ErrorEnvelope500", 500, sharedErrorMessages[500], ["X-Request-Id"]),
  ...extra,
});

/** Creating or resuming a batch: the per-second limit, or the open-batch quota of the key's owner. */
const tooManyOpen = errorResponse(
  "The key's per-second limit is exceeded (Retry-After says when to retry), or its owner has as many batches queued or running, " +
    "or as many inputs not yet done, as the server allows (BATCH_MAX_OPEN_PER_USER, BATCH_MAX_OPEN_INPUTS_PER_USER; a key of no user " +
    "counts its own batches): the message says how much is open. Cancel a batch or wait for one to finish.",
  "ErrorEnvelope429Batch",
  429,
  [messages.qps, "You have 10 batches queued or running, the most one user may have (10). Wait for one to finish, or cancel one to make room."],
  ["X-Request-Id", "RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"],
);

const notFound = errorResponse("No such batch, or another key's.", "ErrorEnvelope404Batch", 404, ["Batch not found"], ["X-Request-Id"]);

const base = { tags: ["batches"], security: [{ bearerAuth: [] }] };

export const createBatchOperation: OperationObject = {
  ...base,
  operationId: "create_batch",
  summary: "Start a batch of lookups",
  description:
    "Queues one lookup per accepted input (and its further pages with options.pages \"all\"). The key pays for each lookup as it would for the lookup itself " +
    "and paces them under its per-second limit; the batch stops at maxCredits. When it ends (done, stopped, canceled), a signed batch.finished event goes to webhookUrl " +
    "or else to the key's alert webhook. Creating it is free.",
  parameters: [],
  requestBody: { required: true, description: "The batch.", content: { "application/json": { schema: schemaRef("BatchRequest") } } },
  responses: common({
    "202": success("Accepted: the batch is queued.", "BatchCreatedEnvelope", { id: EXAMPLE_ID, status: "queued", total: 2, rejected: [{ input: "abc", reason: "not an event id" }], maxCostCredits: 8 }),
    "400": errorResponse("The body is not what the message says it should be.", "ErrorEnvelope400Batch", 400, ["Missing required parameter: inputs"], ["X-Request-Id"]),
    "402": errorResponse("The key's credits do not cover one lookup.", "ErrorEnvelope402", 402, sharedErrorMessages[402], ["X-Request-Id"]),
    "413": errorResponse("The body is larger than 16 MiB.", "ErrorEnvelope413Batch", 413, ["Request body too large (at most 16 MiB)"], ["X-Request-Id"]),
    "429": tooManyOpen,
  }),
  "x-credits-cost": 0,
};

export const listBatchesOperation: OperationObject = {
  ...base,
  operationId: "list_batches",
  summary: "The key's batches",
  description: "The batches this key created, newest first. Free; counts towards the per-second limit.",
  parameters: [{ name: "limit", in: "query", required: false, description: "How many (1–200, default 50).", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 }, example: 20 }],
  responses: common({
    "200": success("The batches.", "BatchListEnvelope", { batches: [exampleBatch] }),
    "400": errorResponse("limit out of range.", "ErrorEnvelope400Batch", 400, ["Invalid parameter: limit (a whole number from 1 to 200)"], ["X-Request-Id"]),
  }),
  "x-credits-cost": 0,
};

export const getBatchOperation: OperationObject = {
  ...base,
  operationId: "get_batch",
  summary: "A batch's progress",
  description: "Counts, credits, status and the completion webhook's delivery. Free; counts towards the per-second limit.",
  parameters: [idParameter],
  responses: common({ "200": success("The batch.", "BatchEnvelope", exampleBatch), "404": notFound }),
  "x-credits-cost": 0,
};

export const batchActionOperation = (action: "pause" | "resume" | "cancel"): OperationObject => ({
  ...base,
  operationId: `${action}_batch`,
  summary: `${action[0]?.toUpperCase() ?? ""}${action.slice(1)} a batch`,
  description:
    action === "pause"
      ? "Lookups in flight finish; no new one starts until resumed. Free."
      : action === "resume"
        ? "A paused or stopped batch goes back in the queue. Free."
        : "Ends the batch; lookups in flight finish and are charged. Free.",
  parameters: [idParameter],
  responses: common({
    "200": success("The batch after the change.", "BatchEnvelope", exampleBatch),
    "404": notFound,
    "409": errorResponse("The batch's status does not allow it.", "ErrorEnvelope409Batch", 409, ["A done batch cannot be paused."], ["X-Request-Id"]),
    ...(action === "resume" ? { "429": tooManyOpen } : {}),
  }),
  "x-credits-cost": 0,
});

export const batchResultsOperation: OperationObject = {
  ...base,
  operationId: "batch_results",
  summary: "A batch's results, streamed",
  description:
    "NDJSON: one line per input found, in the API's own record shapes. CSV: one row per record, the input and its outcome first. Streamed as read. Free.",
  parameters: [
    idParameter,
    { name: "format", in: "query", required: false, description: "ndjson (default) or csv.", schema: { type: "string", enum: ["ndjson", "csv"], default: "ndjson" }, example: "csv" },
  ],
  responses: {
    "200": {
      description: "The results file.",
      headers: headerRefs(["X-Request-Id"]),
      content: { "application/x-ndjson": { schema: { type: "string" } }, "text/csv": { schema: { type: "string" } } },
    },
    ...common({
      "400": errorResponse("format is neither ndjson nor csv.", "ErrorEnvelope400Batch", 400, ['Invalid parameter: format ("ndjson" or "csv")'], ["X-Request-Id"]),
      "404": notFound,
    }),
  },
  "x-credits-cost": 0,
};

export const batchPaths = (): Record<string, { get?: OperationObject; post?: OperationObject }> => ({
  [BATCHES_PATH]: { get: listBatchesOperation, post: createBatchOperation },
  [BATCH_PATH]: { get: getBatchOperation },
  [batchActionPath("pause")]: { post: batchActionOperation("pause") },
  [batchActionPath("resume")]: { post: batchActionOperation("resume") },
  [batchActionPath("cancel")]: { post: batchActionOperation("cancel") },
  [BATCH_RESULTS_PATH]: { get: batchResultsOperation },
});
