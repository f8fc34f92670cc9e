import { consoleRoute } from "@/lib/console-api/handler";
import { summaryResponse } from "@/lib/console-api/usage";

export const dynamic = "force-dynamic";

/** Totals, chart series (groupBy=day,operation,key) and burn-rate forecast of a scope and range. */
export const GET = consoleRoute({}, (context) => summaryResponse(context));
