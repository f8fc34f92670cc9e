import { consoleRoute } from "@/lib/console-api/handler";
import { grantToPool, poolGrantBody } from "@/lib/console-api/workspace-admin";

export const dynamic = "force-dynamic";

/** {credits, reason}: the service administrator grants credits to a team's pool, kept with the reason in the audit log. */
export const POST = consoleRoute({ role: "admin", body: poolGrantBody }, async ({ user, params, body, db, ip }) => ({
  workspace: await grantToPool(db, user, ip, params.id ?? "", body),
}));
