import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { revokeVisibleKey, updateVisibleKeyPolicy, visibleKey } from "@/lib/keys/manage";
import { keyPolicyBody } from "@/lib/keys/policy-input";
import { keyView, principalOf } from "@/lib/keys/view";

export const GET = consoleRoute({}, async ({ user, params, db, ip }) => {
  const key = await visibleKey(db, principalOf(user, ip), params.id ?? "");
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});

/** Changes what the key may call, from where, its refill and its alert thresholds; omitted fields stay. */
export const PATCH = consoleRoute({ body: keyPolicyBody }, async ({ user, params, body, db, ip }) => {
  const key = await updateVisibleKeyPolicy(db, principalOf(user, ip), params.id ?? "", body);
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});

/** Revokes at once; revoking a revoked key answers the same key again. */
export const DELETE = consoleRoute({}, async ({ user, params, db, ip }) => {
  const key = await revokeVisibleKey(db, principalOf(user, ip), params.id ?? "");
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});
