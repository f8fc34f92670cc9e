import type { Metadata } from "next";
import { AuditLog } from "@/components/audit/audit-log";
import { ConsolePage } from "@/components/ui/page-header";
import { requireAdmin } from "@/lib/auth/require-user";

export const metadata: Metadata = { title: "Audit log" };

export default async function AdminAuditPage() {
  await requireAdmin("/admin/audit");
  return (
    <ConsolePage
      title="Audit log"
      description="Every change to keys, credits and users: who made it, when, and from which IP address."
    >
      <AuditLog />
    </ConsolePage>
  );
}
