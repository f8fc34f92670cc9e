import { consoleRoute } from "@/lib/console-api/handler";
import { instanceIdentity } from "@/lib/system/identity";
import { listInstances } from "@/lib/system/instances";

export const dynamic = "force-dynamic";

/** The service administrator's system page: every instance seen lately, with its last snapshot. */
export const GET = consoleRoute({ role: "admin" }, ({ db }) => listInstances(db, instanceIdentity()));
