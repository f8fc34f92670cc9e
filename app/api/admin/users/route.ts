import { unwrapAccount } from "@/lib/console-api/account-problems";
import { consoleRoute } from "@/lib/console-api/handler";
import { createAccount } from "@/lib/users/manage";
import { listUsers } from "@/lib/users/repository";
import { userCreateBody } from "@/lib/users/schemas";
import { toAccountUser } from "@/lib/users/views";
import { leaveTeamsOnReclaim } from "@/lib/workspaces/members";

export const GET = consoleRoute({ role: "admin" }, async ({ db }) => ({ users: (await listUsers(db)).map(toAccountUser) }));

/**
 * Makes an account. An address whose account someone made by accepting an invitation, and which
 * never signed in, is taken back as this one (docs/teams.md "Who makes accounts").
 */
export const POST = consoleRoute({ role: "admin", body: userCreateBody, status: 201 }, async ({ user, body, ip, db }) =>
  toAccountUser(
    unwrapAccount(
      await createAccount(db, { id: user.id, email: user.email, ip }, body, {
        onReclaimed: (tx, actor, reclaimed) => leaveTeamsOnReclaim(tx, actor, reclaimed.id),
      }),
    ),
  ),
);
