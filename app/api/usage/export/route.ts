import { consoleRoute } from "@/lib/console-api/handler";
import { exportResponse } from "@/lib/usage/console";

export const dynamic = "force-dynamic";

/** CSV download (kind=events|daily), streamed page by page. */
export const GET = consoleRoute({}, (context) => exportResponse(context));
