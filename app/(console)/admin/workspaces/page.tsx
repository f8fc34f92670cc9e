import type { Metadata } from "next";
import Link from "next/link";
import { WorkspacesAdmin } from "@/components/admin/workspaces-admin";
import { ConsolePage } from "@/components/ui/page-header";
import { requireAdmin } from "@/lib/auth/require-user";

export const metadata: Metadata = { title: "Workspaces" };

export default async function AdminWorkspacesPage() {
  await requireAdmin("/admin/workspaces");
  return (
    <ConsolePage
      title="Workspaces"
      description={
        <>
          Every team with its pool, members, refill and shared limit. A new team starts with an empty pool: grant it credits here,
          with a reason kept in the{" "}
          <Link href="/admin/audit" className="font-medium text-accent underline-offset-2 hover:underline">
            audit log
          </Link>
          , or give it a refill.
        </>
      }
    >
      <WorkspacesAdmin />
    </ConsolePage>
  );
}
