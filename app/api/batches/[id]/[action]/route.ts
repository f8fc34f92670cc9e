import { z } from "zod";
import { retryFailed } from "@/lib/batches/batches";
import { batchQuotaOf } from "@/lib/batches/quota";
import { changeBatch } from "@/lib/batches/repository";
import { wakeBatchRunner } from "@/lib/batches/start";
import { batchView, createdBatchView } from "@/lib/batches/view";
import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { env } from "@/lib/env";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

/** A batch action's line in the log. */
const ACTION_DONE = { pause: "paused", resume: "resumed", cancel: "canceled" } as const;

const actionBody = z.object({
  /** With resume: a new cap (e.g. raised after the batch stopped at the old one). */
  maxCredits: z.int({ error: "maxCredits must be a whole number of credits." }).min(0, "maxCredits cannot be negative.").optional(),
});

/** POST /api/batches/{id}/pause | resume | cancel | retry (failed inputs as a new batch). */
export const POST = consoleRoute({ body: actionBody }, async ({ user, params, db, body }) => {
  const id = params.id ?? "";
  const action = params.action ?? "";
  if (action === "retry") {
    const created = await retryFailed(db, user, id);
    wakeBatchRunner();
    log.info("batch: created", { batchId: created.batch.id, operation: created.batch.operation, retryOf: id, userId: user.id });
    return Response.json(createdBatchView(created), { status: 201, headers: { "Cache-Control": "no-store" } });
  }
  if (action !== "pause" && action !== "resume" && action !== "cancel") throw notFound("No such batch action.");
  const row = await changeBatch(db, user, id, action, { maxCredits: body.maxCredits, quota: batchQuotaOf(env()) });
  log.info(`batch: ${ACTION_DONE[action]}`, { batchId: id, userId: user.id });
  if (action === "resume") wakeBatchRunner();
  return batchView(row);
});
