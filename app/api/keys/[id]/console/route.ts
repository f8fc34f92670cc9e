import { z } from "zod";
import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { chooseConsoleKey } from "@/lib/keys/manage";
import { keyView, principalOf } from "@/lib/keys/view";

const consoleBody = z.object({
  token: z.string({ error: "Paste the token as text." }).trim().max(500, "That is not a key token.").optional(),
});

/**
 * Makes one of the viewer's own keys the console key. A key issued for the console needs no
 * token; any other proves possession by its token, pasted once and then kept sealed server-side.
 */
export const POST = consoleRoute({ body: consoleBody }, async ({ user, body, params, db, ip }) => {
  const key = await chooseConsoleKey(db, principalOf(user, ip), params.id ?? "", body.token || undefined);
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});
