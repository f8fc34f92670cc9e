import { unwrapAccount } from "@/lib/console-api/account-problems";
import { consoleRoute } from "@/lib/console-api/handler";
import { changeOwnPassword } from "@/lib/users/manage";
import { passwordChangeBody } from "@/lib/users/schemas";

export const POST = consoleRoute({ body: passwordChangeBody }, async ({ user, body, ip, db }) => {
  unwrapAccount(await changeOwnPassword(db, { id: user.id, email: user.email, ip }, body));
  return { ok: true };
});
