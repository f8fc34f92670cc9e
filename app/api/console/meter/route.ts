import { consoleRoute } from "@/lib/console-api/handler";
import { meterView } from "@/lib/console-api/meter";

export const dynamic = "force-dynamic";

/**
 * The credit meter's numbers (lib/console-api/meter.ts): the console key's balance and what it can
 * really spend, the team's pool and the member's budget, and whether the role may run lookups.
 */
export const GET = consoleRoute({}, ({ db, user }) => meterView(db, user));
