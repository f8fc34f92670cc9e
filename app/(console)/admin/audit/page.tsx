import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { AuditLog } from "@/components/audit/audit-log";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Audit log" };

export default async function AdminAuditPage() {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Fadmin%2Faudit");
  // Analysts learn nothing about this page, not even that it exists.
  if (user.role !== "admin") notFound();

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="text-sm text-muted">
          Every change to keys, credits and users: who made it, when, and from which IP address.
        </p>
      </div>
      <AuditLog />
    </div>
  );
}
