import { consoleRoute } from "@/lib/console-api/handler";
import { getKey } from "@/lib/keys/repository";
import { poolMeter } from "@/lib/usage/pool-meter";
import { activeWorkspaceId } from "@/lib/workspaces/active";

export const dynamic = "force-dynamic";

/**
 * The credit meter's numbers: the active console key's credits (null when none is chosen), and in
 * a team workspace its pool and the member's own monthly budget (null in a personal one).
 */
export const GET = consoleRoute({}, async ({ db, user }) => {
  const [key, workspaceId] = await Promise.all([user.consoleKeyId ? getKey(db, user.consoleKeyId) : null, activeWorkspaceId(db, user.id)]);
  const pool = await poolMeter(db, workspaceId, user.id);
  return {
    key: key && key.status === "active" && key.ownerId === user.id
      ? { id: key.id, name: key.name, creditsRemaining: key.creditsRemaining, creditsGranted: key.poolId !== null && pool ? pool.workspace.poolGranted : key.creditsGranted, qpsLimit: key.qpsLimit }
      : null,
    pool: pool?.workspace ?? null,
    budget: pool?.budget ?? null,
  };
});
