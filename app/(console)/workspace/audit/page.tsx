import type { Metadata } from "next";
import { WorkspaceAuditLog } from "@/components/audit/workspace-audit-log";
import { ConsolePage } from "@/components/ui/page-header";
import { requireUser } from "@/lib/auth/require-user";

export const metadata: Metadata = { title: "Workspace audit log" };

export default async function WorkspaceAuditPage() {
  const user = await requireUser("/workspace/audit");
  return (
    <ConsolePage
      title="Workspace audit log"
      description="Changes to the active workspace's members, roles, keys, caps and pool: who made each, when, and from which IP address."
    >
      <WorkspaceAuditLog isServiceAdmin={user.role === "admin"} />
    </ConsolePage>
  );
}
