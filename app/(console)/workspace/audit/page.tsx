import type { Metadata } from "next";
import { WorkspaceAuditLog } from "@/components/audit/workspace-audit-log";
import { userPage } from "@/components/console/console-page";

export const metadata: Metadata = { title: "Workspace audit log" };

export default userPage("/workspace/audit", {
  title: "Workspace audit log",
  description: "Changes to the active workspace's members, roles, keys, caps and pool: who made each, when, and from which IP address.",
  content: <WorkspaceAuditLog />,
});
