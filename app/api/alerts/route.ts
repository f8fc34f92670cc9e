import { consoleRoute } from "@/lib/console-api/handler";
import { openAlertsResponse } from "@/lib/console-api/alerts";

export const dynamic = "force-dynamic";

/** Unacknowledged low-credit alerts of the signed-in user's keys (the console banner). */
export const GET = consoleRoute({}, (context) => openAlertsResponse(context));
