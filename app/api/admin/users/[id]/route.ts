import { unwrapAccount } from "@/lib/console-api/account-problems";
import { consoleRoute } from "@/lib/console-api/handler";
import { updateAccount } from "@/lib/users/manage";
import { userPatchBody } from "@/lib/users/schemas";
import { toAccountUser } from "@/lib/users/views";

export const PATCH = consoleRoute({ role: "admin", body: userPatchBody }, async ({ user, body, params, ip, db }) =>
  toAccountUser(unwrapAccount(await updateAccount(db, { id: user.id, email: user.email, ip }, params.id ?? "", body))),
);
