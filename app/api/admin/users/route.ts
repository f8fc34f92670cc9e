import { unwrapAccount } from "@/lib/console-api/account-problems";
import { consoleRoute } from "@/lib/console-api/handler";
import { createAccount } from "@/lib/users/manage";
import { listUsers } from "@/lib/users/repository";
import { userCreateBody } from "@/lib/users/schemas";
import { toAccountUser } from "@/lib/users/views";

export const GET = consoleRoute({ role: "admin" }, async ({ db }) => ({ users: (await listUsers(db)).map(toAccountUser) }));

export const POST = consoleRoute({ role: "admin", body: userCreateBody, status: 201 }, async ({ user, body, ip, db }) =>
  toAccountUser(unwrapAccount(await createAccount(db, { id: user.id, email: user.email, ip }, body))),
);
