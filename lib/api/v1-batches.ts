import { z } from "zod";
import { createBatch } from "@/lib/batches/batches";
import { batchOperationById } from "@/lib/batches/operations";
import type { Registry } from "@/lib/operations";
import { batchQuotaOf } from "@/lib/batches/quota";
import {
  apiBatchRequestSchema,
  batchOperationIds,
  BATCH_INPUT_MAX_CHARS,
  BATCH_MAX_AGE_LIMIT_S,
  BATCH_REQUEST_MAX_INPUTS,
  BATCH_WEBHOOK_URL_MAX_CHARS,
} from "@/lib/batches/request";
import { changeBatch, findBatch, listKeyBatches, type BatchAction } from "@/lib/batches/repository";
import { csvChunks, firstResultPosition, ndjsonChunks } from "@/lib/batches/results";
import { batchView, createdBatchView } from "@/lib/batches/view";
import { batchWebhookStatus } from "@/lib/batches/webhook";
import type { Db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { admit, type AdmitDeps, type Headers } from "./admit";
import { errorBody, successBody } from "./envelope";
import { messages, v1FailureOf, type ApiErrorCode } from "./errors";

/** A batch action's line in the log (created, started and finished are the runner's and creation's). */
const ACTION_DONE = { pause: "paused", resume: "resumed", cancel: "canceled" } as const;

/**
 * Batches for scripts: /v1/batches with an API key, in the contract's envelope. The checks run in
 * the contract's order — 401 the key, 403 its address allowlist, 429 its per-second limit (control
 * calls count towards it and are free: no charge, no usage record, like /v1/account), 400 the
 * body, 403 an operation the key may not call, 402 the key cannot pay for one lookup, 429 the
 * owner's open-batch quota, 404 no such batch (or another key's). The batch itself is the
 * console's (lib/batches): the same creation, runner, cap and results; the creating key pays and
 * paces. A key that belongs to no user (an operator's key) owns its batches itself.
 */
export const BATCHES_PATH = "/v1/batches";

/** The largest body POST /v1/batches reads (a list of 100,000 inputs fits). */
export const BATCH_BODY_MAX_BYTES = 16 * 1024 * 1024;

const DEFAULT_LIST_LIMIT = 50;
const MAX_LIST_LIMIT = 200;

export type BatchRoute =
  | { kind: "collection" }
  | { kind: "batch"; id: string }
  | { kind: "action"; id: string; action: BatchAction }
  | { kind: "results"; id: string };

/** Which batch resource a /v1 path names (no trailing slash), or null. */
export const batchRoute = (path: string): BatchRoute | null => {
  if (path === BATCHES_PATH) return { kind: "collection" };
  if (!path.startsWith(`${BATCHES_PATH}/`)) return null;
  const [id, sub, ...rest] = path.slice(BATCHES_PATH.length + 1).split("/");
  if (!id || rest.length > 0) return null;
  if (sub === undefined) return { kind: "batch", id };
  if (sub === "results") return { kind: "results", id };
  if (sub === "pause" || sub === "resume" || sub === "cancel") return { kind: "action", id, action: sub };
  return null;
};

/** The methods each batch resource answers. */
export const batchMethods = (route: BatchRoute): string => {
  switch (route.kind) {
    case "collection":
      return "GET, POST";
    case "action":
      return "POST";
    default:
      return "GET";
  }
};

export type BatchRequest = {
  method: string;
  authorization: string | null;
  query: URLSearchParams;
  /** The request body as text (POST /v1/batches), read on demand; null when there is none; a DomainError body_too_large past BATCH_BODY_MAX_BYTES. */
  body: () => Promise<string | null>;
  /** This server's public address: the results URL in answers and webhooks is built on it. */
  publicUrl: string;
  /** The client's address as the front determined it: a key's address allowlist applies to batch calls too. */
  clientAddress: string;
  /**
   * NDJSON results from the record at this offset (records are found inputs, in input order):
   * the MCP tool's pages, read from there instead of from the start. Not a /v1 query parameter.
   */
  resultsOffset?: number;
};

export type BatchAnswer = {
  status: number;
  body: string;
  headers: Headers;
  /** A results file: sent as it is read from the database, instead of body. */
  stream?: AsyncGenerator<string>;
  /** The key the request authenticated (never its token), for the request log; absent before that. */
  keyId?: string;
};

export type BatchDeps = AdmitDeps & {
  db: () => Promise<Db>;
  /** Tells this process's runner there is work now (a batch created or resumed). */
  wake: () => void;
  /** The operations a batch may name: the router's registry (the process's unless given). */
  operations?: Registry;
};

/**
 * POST /v1/batches's body (lib/batches/request.ts), worded in the contract's parameter style:
 * "Invalid parameter: inputs (give at least one input)". The OpenAPI document's BatchRequest.
 */
export const v1BatchRequest = apiBatchRequestSchema({
  operation: { notText: `operation must be the id of an operation, e.g. ${batchOperationIds()[0] ?? ""}`, empty: "operation is required" },
  input: { notText: "each input must be a string", tooLong: `an input is at most ${BATCH_INPUT_MAX_CHARS} characters` },
  inputs: { notList: "inputs must be an array of strings", empty: "give at least one input", tooMany: `give at most ${BATCH_REQUEST_MAX_INPUTS} inputs` },
  pages: 'pages must be "first" or "all"',
  maxPages: { notWhole: "maxPages must be a whole number", belowOne: "maxPages must be at least 1" },
  maxAgeS: {
    notWhole: "maxAgeS must be a whole number of seconds",
    negative: "maxAgeS cannot be negative",
    tooLarge: `maxAgeS is at most ${BATCH_MAX_AGE_LIMIT_S}`,
  },
  maxCredits: { notWhole: "maxCredits must be a whole number of credits", negative: "maxCredits cannot be negative" },
  webhookUrl: { notText: "webhookUrl must be a URL", tooLong: `webhookUrl is at most ${BATCH_WEBHOOK_URL_MAX_CHARS} characters` },
});

/** The value at `path` in a parsed JSON body, undefined when it is not there. */
const valueAt = (body: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((value, step) => (typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[step] : undefined), body);

/** A zod issue as one sentence naming the field: "Invalid parameter: inputs (give at least one input)". */
const sentenceOf = (error: z.ZodError, body: unknown): string => {
  const issue = error.issues[0];
  if (!issue) return "Invalid request body";
  const name = issue.path.filter((part) => typeof part !== "number").join(".") || "body";
  // zod does not keep the input on an issue: a field is missing only when the body has none.
  if (issue.code === "invalid_type" && valueAt(body, issue.path) === undefined) return `Missing required parameter: ${name}`;
  if (issue.code === "unrecognized_keys") return `Invalid parameter: ${issue.keys.join(", ")} (not a field of this request)`;
  return `Invalid parameter: ${name} (${issue.message})`;
};

const resultsUrl = (publicUrl: string, id: string) => `${publicUrl.replace(/\/$/, "")}${BATCHES_PATH}/${id}/results`;

export const runBatchRequest = async (route: BatchRoute, request: BatchRequest, deps: BatchDeps): Promise<BatchAnswer> => {
  const requestId = crypto.randomUUID();
  const fail = (status: ApiErrorCode, message: string, headers: Headers, keyId?: string): BatchAnswer => ({
    status,
    body: errorBody(status, message, requestId),
    headers,
    ...(keyId === undefined ? {} : { keyId }),
  });
  // Batch control is allowed to a key of any operations scope; its address allowlist still holds.
  const admitted = await admit(request.authorization, requestId, deps, { operationId: null, clientAddress: request.clientAddress }).then(
    (admission) => ({ ok: true as const, admission }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (!admitted.ok) {
    log.error("batch request failed", { requestId, err: admitted.error });
    return fail(500, messages.internal, { "X-Request-Id": requestId });
  }
  const { admission } = admitted;
  if (admission.kind === "unauthenticated") return fail(401, admission.message, admission.headers);
  if (admission.kind === "forbidden") return fail(403, admission.message, admission.headers, admission.key.id);
  if (admission.kind === "rate_limited") return fail(429, messages.qps, admission.headers, admission.key.id);
  const { key, headers } = admission;
  const ok = (data: unknown, status = 200): BatchAnswer => ({ status, body: successBody(JSON.stringify(data), requestId), headers, keyId: key.id });
  const refuse = (status: ApiErrorCode, message: string): BatchAnswer => fail(status, message, headers, key.id);
  // The key's own view: its batches only; another key's batch is "not found". A batch of a key
  // with an owner is also the owner's (their Batches page lists it); one of an operator's key is the key's alone.
  const viewer = { id: key.ownerId, role: "analyst" as const, keyId: key.id };

  try {
    const db = await deps.db();
    const withWebhook = async (row: Awaited<ReturnType<typeof findBatch>>) => ({
      ...batchView(row),
      resultsUrl: resultsUrl(request.publicUrl, row.id),
      webhook: await batchWebhookStatus(db, row.id),
    });
    switch (route.kind) {
      case "collection": {
        if (request.method === "GET") {
          const raw = request.query.get("limit");
          const limit = raw === null ? DEFAULT_LIST_LIMIT : Number(raw);
          if (!/^\d{1,4}$/.test(raw ?? "0") || limit < 1 || limit > MAX_LIST_LIMIT) {
            return refuse(400, `Invalid parameter: limit (a whole number from 1 to ${MAX_LIST_LIMIT})`);
          }
          const rows = await listKeyBatches(db, key.id, limit);
          return ok({ batches: rows.map((row) => ({ ...batchView(row), resultsUrl: resultsUrl(request.publicUrl, row.id) })) });
        }
        const text = await request.body();
        let json: unknown;
        try {
          json = JSON.parse(text ?? "");
        } catch {
          return refuse(400, "Invalid parameter: body (a JSON object is expected)");
        }
        const parsed = v1BatchRequest.safeParse(json);
        if (!parsed.success) return refuse(400, sentenceOf(parsed.error, json));
        const body = parsed.data;
        const token = (request.authorization ?? "").replace(/^Bearer\s+/i, "").trim();
        const created = await createBatch(db, viewer, {
          operation: body.operation,
          inputs: body.inputs,
          options: body.options,
          maxCredits: body.maxCredits ?? Number.MAX_SAFE_INTEGER,
          payer: { keyId: key.id, token },
          webhookUrl: body.webhookUrl ?? null,
        }, deps.operations);
        deps.wake();
        const view = createdBatchView(created);
        log.info("batch: created", { batchId: view.id, operation: body.operation, inputs: view.total, keyId: key.id, requestId });
        return ok(
          {
            id: view.id,
            status: view.status,
            total: view.total,
            rejected: view.rejected,
            maxCostCredits: view.maxCostCredits,
            maxCredits: view.maxCredits,
            duplicates: view.duplicates,
            resultsUrl: resultsUrl(request.publicUrl, view.id),
          },
          202,
        );
      }
      case "batch":
        return ok(await withWebhook(await findBatch(db, viewer, route.id)));
      case "action":
        // The batch as the action left it (a resumed batch is "queued" until a runner takes it).
        const changed = await changeBatch(db, viewer, route.id, route.action, { quota: batchQuotaOf(env()) });
        log.info(`batch: ${ACTION_DONE[route.action]}`, { batchId: route.id, keyId: key.id, requestId });
        if (route.action === "resume") deps.wake();
        return ok(await withWebhook(changed));
      case "results": {
        const format = request.query.get("format") ?? "ndjson";
        if (format !== "csv" && format !== "ndjson") return refuse(400, 'Invalid parameter: format ("ndjson" or "csv")');
        const batch = await findBatch(db, viewer, route.id);
        const operation = batchOperationById(batch.operation, deps.operations);
        if (!operation) return refuse(404, "Batch not found");
        return {
          status: 200,
          body: "",
          keyId: key.id,
          headers: {
            ...headers,
            "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
            "Content-Disposition": `attachment; filename="batch-${batch.id.slice(0, 8)}-${operation.id}.${format}"`,
          },
          stream:
            format === "csv"
              ? csvChunks(db.longReads, batch.id, operation)
              : ndjsonChunks(db.longReads, batch.id, operation, await firstResultPosition(db, batch.id, request.resultsOffset ?? 0)),
        };
      }
    }
  } catch (error) {
    const failure = v1FailureOf(error);
    if (failure !== null) return refuse(failure.status, failure.message);
    log.error("batch request failed", { requestId, keyId: key.id, err: error });
    return refuse(500, messages.internal);
  }
};
