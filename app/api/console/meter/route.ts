import { consoleRoute } from "@/lib/console-api/handler";
import { getKey } from "@/lib/keys/repository";

export const dynamic = "force-dynamic";

/** The credit meter's numbers: the active console key's credits, or null when none is chosen. */
export const GET = consoleRoute({}, async ({ db, user }) => {
  const key = user.consoleKeyId ? await getKey(db, user.consoleKeyId) : null;
  return {
    key: key && key.status === "active" && key.ownerId === user.id
      ? { id: key.id, name: key.name, creditsRemaining: key.creditsRemaining, creditsGranted: key.creditsGranted, qpsLimit: key.qpsLimit }
      : null,
  };
});
