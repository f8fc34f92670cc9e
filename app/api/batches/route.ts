import { z } from "zod";
import { createBatch } from "@/lib/batches/batches";
import { listBatches } from "@/lib/batches/repository";
import { wakeBatchRunner } from "@/lib/batches/start";
import { batchView, createdBatchView } from "@/lib/batches/view";
import { consoleRoute } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";

export const dynamic = "force-dynamic";

// Raw lines, before duplicates and rejected lines are taken out; the per-batch limit applies after.
const MAX_LINES = 100_000;

const newBatchBody = z.object({
  operation: z.string({ error: "Choose an operation." }).min(1, "Choose an operation."),
  inputs: z
    .array(z.string({ error: "Each input must be a string." }).max(4096, "An input is at most 4096 characters."), {
      error: "inputs must be a list of strings.",
    })
    .min(1, "Give at least one input.")
    .max(MAX_LINES, `Give at most ${MAX_LINES} lines.`),
  options: z
    .object({
      pages: z.enum(["first", "all"], { error: 'pages must be "first" or "all".' }).default("first"),
      maxPages: z.int({ error: "maxPages must be a whole number." }).min(1, "maxPages must be at least 1.").optional(),
    })
    .optional(),
  maxCredits: z.int({ error: "maxCredits must be a whole number of credits." }).min(0, "maxCredits cannot be negative."),
});

const listQuery = z.object({ scope: z.enum(["mine", "all"], { error: "scope must be mine or all." }).default("mine") });

/** The viewer's batches, newest first; an admin may ask for everyone's with ?scope=all. */
export const GET = consoleRoute({}, async ({ user, query, db }) => {
  const parsed = listQuery.safeParse({ scope: query.get("scope") ?? undefined });
  if (!parsed.success) throw new DomainError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid scope.");
  const rows = await listBatches(db, user, parsed.data.scope);
  return { batches: rows.map((row) => batchView(row)) };
});

/** Creates a batch; the runner takes it from the queue (this instance is woken at once). */
export const POST = consoleRoute({ body: newBatchBody, status: 201 }, async ({ user, body, db }) => {
  const created = await createBatch(db, user, body);
  wakeBatchRunner();
  return createdBatchView(created);
});
