import { z } from "zod";
import { findBatch, itemsAfter } from "@/lib/batches/repository";
import type { BatchItemView } from "@/lib/batches/view";
import { consoleRoute } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";

export const dynamic = "force-dynamic";

/** Positions and pages are integer columns: a larger number is a 400, not a database error. */
const INTEGER_MAX = 2_147_483_647;

const pageQuery = z.object({
  afterPosition: z.coerce.number().int().min(0).max(INTEGER_MAX).default(0),
  afterPage: z.coerce.number().int().min(0).max(INTEGER_MAX).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** The results table: lookups of a batch in input order, a page at a time (keyset on position, page). */
export const GET = consoleRoute({}, async ({ user, params, query, db }) => {
  const parsed = pageQuery.safeParse(Object.fromEntries(query));
  if (!parsed.success) throw new DomainError("invalid_request", "afterPosition, afterPage and limit must be whole numbers.");
  const batch = await findBatch(db, user, params.id ?? "");
  const rows = await itemsAfter(db, batch.id, { position: parsed.data.afterPosition, page: parsed.data.afterPage }, parsed.data.limit, false);
  const items: BatchItemView[] = rows.map((row) => ({
    position: row.position,
    page: row.page,
    input: row.input,
    state: row.state,
    httpStatus: row.http_status,
    creditsCharged: row.credits_charged,
    detail: row.http_status === 200 ? row.summary : row.message,
  }));
  const last = rows.at(-1);
  return { items, next: last && rows.length === parsed.data.limit ? { afterPosition: last.position, afterPage: last.page } : null };
});
