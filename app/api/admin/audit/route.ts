import { z } from "zod";
import { consoleRoute } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";
import { limitParam } from "@/lib/console-api/query";
import { listAudit } from "@/lib/audit/log";
import { toAuditView } from "@/lib/keys/view";

const auditQuery = z.object({
  before: z.coerce
    .number({ error: "before must be an entry id." })
    .int("before must be an entry id.")
    .positive("before must be an entry id.")
    .max(Number.MAX_SAFE_INTEGER, "before must be an entry id.")
    .optional(),
  limit: limitParam(200, 50),
});

/** Admin only: newest entries first, paged by id (`nextBefore` is null on the last page). */
export const GET = consoleRoute({ role: "admin" }, async ({ query, db }) => {
  const parsed = auditQuery.safeParse({
    before: query.get("before") || undefined,
    limit: query.get("limit") || undefined,
  });
  if (!parsed.success) throw new DomainError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid query.");
  const { before, limit } = parsed.data;
  // One extra row says whether another page exists without a count query.
  const rows = await listAudit(db, { beforeId: before, limit: limit + 1 });
  const entries = rows.slice(0, limit).map(toAuditView);
  const last = entries.at(-1);
  return { entries, nextBefore: rows.length > limit && last ? last.id : null };
});
