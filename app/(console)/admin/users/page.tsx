import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { UsersAdmin } from "@/components/admin/users-admin";
import { currentUser } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { listUsers } from "@/lib/users/repository";
import { toAccountUser } from "@/lib/users/views";

export const metadata: Metadata = { title: "Users" };

export default async function AdminUsersPage() {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Fadmin%2Fusers");
  // Analysts learn nothing about this page, not even that it exists.
  if (user.role !== "admin") notFound();
  const users = (await listUsers(await getDb())).map(toAccountUser);

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Users</h1>
        <p className="text-sm text-muted">
          Create analysts and administrators, disable accounts, reset passwords and set how many credits analysts may give their
          keys. Every change is written to the audit log.
        </p>
      </div>
      <UsersAdmin initialUsers={users} currentUserId={user.id} />
    </div>
  );
}
