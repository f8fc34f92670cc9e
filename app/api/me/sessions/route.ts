import { consoleRoute } from "@/lib/console-api/handler";
import { signOutEverywhere } from "@/lib/users/manage";

export const DELETE = consoleRoute({}, async ({ user, ip, db }) => {
  await signOutEverywhere(db, { id: user.id, email: user.email, ip });
  return { ok: true };
});
