import { unwrapAccount } from "@/lib/console-api/account-problems";
import { consoleRoute } from "@/lib/console-api/handler";
import { keyChanged } from "@/lib/keys/events";
import { updateAccount } from "@/lib/users/manage";
import { userPatchBody } from "@/lib/users/schemas";
import { toAccountUser } from "@/lib/users/views";

const accountChanges = { keysChanged: () => keyChanged(null) };

export const PATCH = consoleRoute({ role: "admin", body: userPatchBody }, async ({ user, body, params, ip, db }) =>
  toAccountUser(unwrapAccount(await updateAccount(db, { id: user.id, email: user.email, ip }, params.id ?? "", body, accountChanges))),
);
