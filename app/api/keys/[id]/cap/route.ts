import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { capVisibleKey } from "@/lib/keys/manage";
import { capOf, keyCapBody } from "@/lib/keys/policy-input";
import { keyView, principalOf } from "@/lib/keys/view";

export const dynamic = "force-dynamic";

/**
 * {capCredits, capPeriod: "day" | "month" | "total"} sets the key's own cap; both null clear it.
 * Owners and admins of the key's workspace (keys.manage) may; an analyst may not lift their own.
 */
export const PUT = consoleRoute({ body: keyCapBody }, async ({ user, params, body, db, ip }) => {
  const key = await capVisibleKey(db, principalOf(user, ip), params.id ?? "", capOf(body.capCredits, body.capPeriod));
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});
