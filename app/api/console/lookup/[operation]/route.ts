import { consoleRoute } from "@/lib/console-api/handler";
import { consoleLookup, lookupResponse } from "@/lib/console-api/lookup";

export const dynamic = "force-dynamic";

export const GET = consoleRoute({}, async ({ db, user, params, query }) =>
  lookupResponse(await consoleLookup(db, user.id, params.operation ?? "", query)),
);
