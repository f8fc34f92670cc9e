import { consoleRoute } from "@/lib/console-api/handler";
import { withExportSlot } from "@/lib/export/gate";
import { exportResponse } from "@/lib/console-api/usage";

export const dynamic = "force-dynamic";

/** CSV download (kind=events|daily), streamed page by page, in one of the process's export slots. */
export const GET = consoleRoute({}, (context) => withExportSlot(context.request.signal, () => exportResponse(context)));
