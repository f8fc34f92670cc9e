import { z } from "zod";
import { createBatch } from "@/lib/batches/batches";
import { listBatches } from "@/lib/batches/repository";
import { wakeBatchRunner } from "@/lib/batches/start";
import { batchView, createdBatchView } from "@/lib/batches/view";
import { consoleBatchRequest } from "@/lib/console-api/batch-request";
import { consoleRoute } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";
import { log } from "@/lib/log";
import { requireWorkspaceRole } from "@/lib/workspaces/access";
import { activeWorkspaceId } from "@/lib/workspaces/active";

export const dynamic = "force-dynamic";

const listQuery = z.object({ scope: z.enum(["mine", "all"], { error: "scope must be mine or all." }).default("mine") });

/** The viewer's batches, newest first; an admin may ask for everyone's with ?scope=all. */
export const GET = consoleRoute({}, async ({ user, query, db }) => {
  const parsed = listQuery.safeParse({ scope: query.get("scope") ?? undefined });
  if (!parsed.success) throw new DomainError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid scope.");
  const rows = await listBatches(db, user, parsed.data.scope);
  return { batches: rows.map((row) => batchView(row)) };
});

/** Creates a batch; the runner takes it from the queue (this instance is woken at once). */
export const POST = consoleRoute({ body: consoleBatchRequest, status: 201 }, async ({ user, body, db }) => {
  // In the active workspace, with its credits: a role that may not run lookups there may not start one.
  await requireWorkspaceRole(db, { id: user.id, role: "analyst" }, await activeWorkspaceId(db, user.id), "lookups.run");
  const created = await createBatch(db, user, body);
  wakeBatchRunner();
  const view = createdBatchView(created);
  log.info("batch: created", { batchId: view.id, operation: body.operation, inputs: view.total, userId: user.id });
  return view;
});
