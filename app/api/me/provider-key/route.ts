import { consoleRoute } from "@/lib/console-api/handler";
import { providerKeyBody, providerKeyState, removeOwnProviderKey, setOwnProviderKey } from "@/lib/connectors/upstream-admin";

export const dynamic = "force-dynamic";

/** The signed-in user's own provider key (UPSTREAM_KEY_MODE=per-user): state and hint only, never the key. */
export const GET = consoleRoute({}, ({ user, db }) => providerKeyState(db, user.id));

export const PUT = consoleRoute({ body: providerKeyBody }, ({ user, body, db }) => setOwnProviderKey(db, user.id, body.key));

export const DELETE = consoleRoute({}, ({ user, db }) => removeOwnProviderKey(db, user.id));
