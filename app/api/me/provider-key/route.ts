import { consoleRoute } from "@/lib/console-api/handler";
import { providerKeyBody, providerKeyState, removeOwnProviderKey, setOwnProviderKey, type UpstreamAdminDeps } from "@/lib/connectors/upstream-admin";
import { services } from "@/lib/services";

export const dynamic = "force-dynamic";

const deps: UpstreamAdminDeps = { connector: async () => (await services()).connector };

/** The signed-in user's own provider key (UPSTREAM_KEY_MODE=per-user): state and hint only, never the key. */
export const GET = consoleRoute({}, ({ user, db }) => providerKeyState(db, user.id));

export const PUT = consoleRoute({ body: providerKeyBody }, ({ user, body, db }) => setOwnProviderKey(db, user.id, body.key, deps));

export const DELETE = consoleRoute({}, ({ user, db }) => removeOwnProviderKey(db, user.id, deps));
