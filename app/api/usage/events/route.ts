import { consoleRoute } from "@/lib/console-api/handler";
import { eventsResponse } from "@/lib/console-api/usage";

export const dynamic = "force-dynamic";

/** The request log, newest first; pass `nextCursor` back as `cursor` for the next page. */
export const GET = consoleRoute({}, (context) => eventsResponse(context));
