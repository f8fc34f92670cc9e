import { z } from "zod";
import { registry } from "@/lib/operations";
import { consoleRoute } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";
import { limitParam } from "@/lib/console-api/query";
import { MAX_RECENT_LIMIT, recentLookups } from "@/lib/usage/recent";

export const dynamic = "force-dynamic";

const operationIds = registry.map((operation) => operation.id);

const recentQuery = z.object({
  operations: z
    .string()
    .optional()
    .transform((value) => (value ? value.split(",").map((name) => name.trim()).filter(Boolean) : operationIds))
    .refine((names) => names.every((name) => operationIds.includes(name)), {
      message: `operations must be a comma-separated list of ${operationIds.join(", ")}.`,
    }),
  limit: limitParam(MAX_RECENT_LIMIT, 10, "limit must be a number."),
});

/** The signed-in user's recent successful lookups: `?operations=<id>,<id>&limit=10` (ids of the registry). */
export const GET = consoleRoute({}, async ({ db, user, query }) => {
  const parsed = recentQuery.safeParse({
    operations: query.get("operations") ?? undefined,
    limit: query.get("limit") ?? undefined,
  });
  if (!parsed.success) {
    throw new DomainError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid query.");
  }
  return { items: await recentLookups(db, user.id, parsed.data.operations, parsed.data.limit) };
});
