import { z } from "zod";
import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { rollVisibleKey } from "@/lib/keys/manage";
import { keyView, principalOf } from "@/lib/keys/view";
import { authSecret } from "@/lib/security/secrets";

const rollBody = z.object({
  grace: z.enum(["none", "1h", "24h"], { error: "Choose none, 1h or 24h." }),
});

/** A new token; the old one keeps working for the chosen grace period. The new token is sent once. */
export const POST = consoleRoute({ body: rollBody }, async ({ user, body, params, db, ip }) => {
  const rolled = await rollVisibleKey(db, authSecret(), principalOf(user, ip), params.id ?? "", body.grace);
  if (!rolled) throw notFound("No such key.");
  return { key: await keyView(db, user.id, rolled.key), token: rolled.token };
});
