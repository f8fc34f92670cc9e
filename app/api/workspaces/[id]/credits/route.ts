import { consoleRoute } from "@/lib/console-api/handler";
import { fundPool, poolCreditsBody } from "@/lib/console-api/workspaces";

export const dynamic = "force-dynamic";

/**
 * {credits} into the team's pool: granted by the service administrator, or moved from an owner's
 * or admin's own credit allowance. Answers the pool's new balance.
 */
export const POST = consoleRoute({ body: poolCreditsBody }, async ({ user, params, body, db, ip }) => {
  const workspace = await fundPool(db, user, ip, params.id ?? "", body.credits);
  return { workspaceId: workspace.id, poolCredits: workspace.poolCredits, poolGranted: workspace.poolGranted };
});
