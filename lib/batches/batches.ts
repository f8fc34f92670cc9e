import type { Db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { consoleToken } from "@/lib/keys/manage";
import { DomainError } from "@/lib/errors";
import { checkInputsInSlices, maxCostCredits, pagesPerInput, type BatchPagesOption, type RejectedInput } from "./inputs";
import type { Registry } from "@/lib/operations";
import { acceptsInputOf, batchOperationById, batchOperationView } from "./operations";
import { sealBatchToken } from "./payer";
import { batchQuotaOf } from "./quota";
import { failedInputs, findBatch, insertBatch, type BatchRow, type Viewer } from "./repository";
import { batchWebhookProblem } from "./webhook";

/**
 * Creating a batch: which inputs it takes, what it may cost at most, and whether the paying key
 * (the console key, or the API key that asks under /v1) can pay for a first lookup. The console
 * and /v1 both create batches here. No HTTP here; errors are DomainErrors with codes.
 */
export type CreateBatchInput = {
  operation: string;
  inputs: readonly string[];
  options?: Partial<BatchPagesOption> & { maxAgeS?: number };
  maxCredits: number;
  retryOf?: string | null;
  /** A batch created with an API key: that key pays and paces it (else the owner's console key). */
  payer?: { keyId: string; token: string };
  /** Where its batch.finished event goes (else the paying key's alert webhook). */
  webhookUrl?: string | null;
};

export type CreatedBatch = { batch: BatchRow; rejected: RejectedInput[]; duplicates: number };

export const createBatch = async (db: Db, user: Viewer, request: CreateBatchInput, operations?: Registry): Promise<CreatedBatch> => {
  const config = env();
  const operation = batchOperationById(request.operation, operations);
  if (!operation) throw new DomainError("unknown_operation", `There is no operation "${request.operation}" for batches.`);
  const view = batchOperationView(operation);
  const check = await checkInputsInSlices(view, request.inputs, {
    eventSiteHosts: config.EVENTSITE_HOSTS,
    maxInputs: config.BATCH_MAX_INPUTS,
    acceptsInput: acceptsInputOf(operation),
  });
  if (check.accepted.length === 0) throw new DomainError("no_valid_inputs", "None of the inputs can be looked up: nothing to run.");
  if (check.overLimit > 0) {
    throw new DomainError(
      "too_many_inputs",
      `A batch takes at most ${config.BATCH_MAX_INPUTS} inputs; this one has ${check.accepted.length}. Split the list.`,
    );
  }
  const pages = pagesPerInput(view, { pages: request.options?.pages ?? "first", maxPages: request.options?.maxPages }, config.BATCH_MAX_PAGES);
  const maxCost = maxCostCredits(view, check.accepted.length, pages);
  if (request.maxCredits < operation.costCredits) {
    throw new DomainError("cap_below_one_lookup", `The cap must cover at least one lookup (${operation.costCredits} credits).`);
  }
  // An empty URL is no URL: refused like any other, never stored to be delivered to later.
  const webhookProblem = request.webhookUrl === undefined || request.webhookUrl === null ? null : batchWebhookProblem(request.webhookUrl);
  if (webhookProblem !== null) throw new DomainError("invalid_webhook", webhookProblem);
  const credentials = request.payer ?? (user.id === null ? null : await consoleToken(db, user.id));
  if (!credentials) throw new DomainError("no_console_key", "Choose a console key on the Keys page before starting a batch.");
  const keyRows = await db.query<{ credits_remaining: number | string; status: string; operations: string[] | null }>(
    // What the key can spend: its own credits, or its team's pool (the key_credits view).
    "SELECT c.credits_remaining, k.status, k.operations FROM api_keys k JOIN key_credits c ON c.id = k.id WHERE k.id = $1",
    [credentials.keyId],
  );
  const key = keyRows[0];
  // Every lookup of the batch would be refused for a key limited to other operations: refuse it now.
  if (key !== undefined && key.operations !== null && !key.operations.includes(operation.id)) {
    throw new DomainError(
      "operation_not_allowed",
      `Your ${request.payer ? "API" : "console"} key may not call ${operation.id}: it is limited to ${key.operations.join(", ")}. Use another key or allow this operation on the Keys page.`,
    );
  }
  const creditsRemaining = key && key.status === "active" ? Number(key.credits_remaining) : 0;
  if (creditsRemaining < operation.costCredits) {
    throw new DomainError(
      "key_cannot_pay",
      `Your ${request.payer ? "API" : "console"} key has ${creditsRemaining} credits left; one lookup costs ${operation.costCredits}. Top it up first.`,
    );
  }
  // Per-user batch quotas (open batches, inputs) are checked here, before anything is stored.
  const id = crypto.randomUUID();
  const batch = await insertBatch(db, {
    id,
    userId: user.id,
    operation: operation.id,
    maxPages: pages,
    maxCredits: Math.min(request.maxCredits, maxCost),
    maxCostCredits: maxCost,
    inputs: check.accepted,
    retryOf: request.retryOf ?? null,
    payer: request.payer ? { keyId: request.payer.keyId, tokenSealed: sealBatchToken(id, request.payer.token) } : null,
    webhookUrl: request.webhookUrl ?? null,
    maxAgeS: request.options?.maxAgeS ?? null,
    quota: batchQuotaOf(config),
  });
  return { batch, rejected: check.rejected, duplicates: check.duplicates.length };
};

/** The failed inputs of a batch as a new batch: same operation, pages and cap. */
export const retryFailed = async (db: Db, user: Viewer, batchId: string): Promise<CreatedBatch> => {
  const original = await findBatch(db, user, batchId);
  const inputs = await failedInputs(db, original.id);
  if (inputs.length === 0) throw new DomainError("nothing_to_retry", "No input of this batch failed: nothing to retry.");
  return createBatch(db, user, {
    operation: original.operation,
    inputs,
    options: { pages: original.max_pages > 1 ? "all" : "first", maxPages: original.max_pages },
    maxCredits: original.max_credits,
    retryOf: original.id,
  });
};
