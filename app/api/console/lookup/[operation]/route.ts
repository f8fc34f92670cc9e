import { consoleRoute } from "@/lib/console-api/handler";
import { consoleLookupHandler, lookupHeadResponse } from "@/lib/console-api/lookup";

export const dynamic = "force-dynamic";

/** Any operation of the registry, run with the signed-in user's console key (lib/console-api/lookup.ts). */
export const GET = consoleRoute({}, consoleLookupHandler());

/** Never charged: see lookupHeadResponse. */
export const HEAD = (): Response => lookupHeadResponse();
