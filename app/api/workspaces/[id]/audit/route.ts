import { z } from "zod";
import { listAudit } from "@/lib/audit/log";
import { consoleRoute } from "@/lib/console-api/handler";
import { limitParam } from "@/lib/console-api/query";
import { DomainError } from "@/lib/errors";
import { toAuditView } from "@/lib/keys/view";
import { requireWorkspaceRole } from "@/lib/workspaces/access";

export const dynamic = "force-dynamic";

const auditQuery = z.object({
  before: z.coerce
    .number({ error: "before must be an entry id." })
    .int("before must be an entry id.")
    .positive("before must be an entry id.")
    .max(Number.MAX_SAFE_INTEGER, "before must be an entry id.")
    .optional(),
  limit: limitParam(200, 50),
});

/** The workspace's audit log: membership, role, key, cap and pool changes, newest first, paged by id. */
export const GET = consoleRoute({}, async ({ user, params, query, db }) => {
  const membership = await requireWorkspaceRole(db, user, params.id ?? "", "audit.read");
  const parsed = auditQuery.safeParse({ before: query.get("before") || undefined, limit: query.get("limit") || undefined });
  if (!parsed.success) throw new DomainError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid query.");
  const { before, limit } = parsed.data;
  const rows = await listAudit(db, { beforeId: before, limit: limit + 1, workspaceId: membership.workspace.id });
  const entries = rows.slice(0, limit).map(toAuditView);
  const last = entries.at(-1);
  return { entries, nextBefore: rows.length > limit && last ? last.id : null };
});
