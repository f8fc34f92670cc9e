import type { Metadata } from "next";
import { UsersAdmin } from "@/components/admin/users-admin";
import { ConsolePage } from "@/components/ui/page-header";
import { requireAdmin } from "@/lib/auth/require-user";
import { getDb } from "@/lib/database";
import { listUsers } from "@/lib/users/repository";
import { toAccountUser } from "@/lib/users/views";

export const metadata: Metadata = { title: "Users" };

export default async function AdminUsersPage() {
  const user = await requireAdmin("/admin/users");
  const users = (await listUsers(await getDb())).map(toAccountUser);

  return (
    <ConsolePage
      title="Users"
      description="Create analysts and administrators, disable accounts, reset passwords and set how many credits analysts may give their keys. Every change is written to the audit log."
    >
      <UsersAdmin initialUsers={users} currentUserId={user.id} />
    </ConsolePage>
  );
}
