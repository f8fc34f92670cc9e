import { consoleRoute } from "@/lib/console-api/handler";
import { acknowledgeResponse } from "@/lib/console-api/alerts";

/** Dismisses an alert (and the key's older open ones). */
export const POST = consoleRoute({}, (context) => acknowledgeResponse(context, context.params.id ?? ""));
