import type { Metadata } from "next";
import { AuditLog } from "@/components/audit/audit-log";
import { adminPage } from "@/components/console/console-page";

export const metadata: Metadata = { title: "Audit log" };

export default adminPage("/admin/audit", {
  title: "Audit log",
  description: "Every change to keys, credits and users: who made it, when, and from which IP address.",
  content: <AuditLog />,
});
