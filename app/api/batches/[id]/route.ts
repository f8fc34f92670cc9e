import { findBatch } from "@/lib/batches/repository";
import { batchView } from "@/lib/batches/view";
import { batchWebhookStatus } from "@/lib/batches/webhook";
import { consoleRoute } from "@/lib/console-api/handler";

export const dynamic = "force-dynamic";

/** One batch and its progress; another analyst's batch is "not found". */
export const GET = consoleRoute({}, async ({ user, params, db }) => {
  const row = await findBatch(db, user, params.id ?? "");
  return { ...batchView(row), webhook: await batchWebhookStatus(db, row.id) };
});
