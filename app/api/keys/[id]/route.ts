import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { revokeVisibleKey, visibleKey } from "@/lib/keys/manage";
import { keyView, principalOf } from "@/lib/keys/view";

export const GET = consoleRoute({}, async ({ user, params, db, ip }) => {
  const key = await visibleKey(db, principalOf(user, ip), params.id ?? "");
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});

/** Revokes at once; revoking a revoked key answers the same key again. */
export const DELETE = consoleRoute({}, async ({ user, params, db, ip }) => {
  const key = await revokeVisibleKey(db, principalOf(user, ip), params.id ?? "");
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});
