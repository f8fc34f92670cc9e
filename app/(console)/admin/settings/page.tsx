import type { Metadata } from "next";
import { ConsolePage } from "@/components/ui/page-header";
import { requireAdmin } from "@/lib/auth/require-user";
import { UpstreamSettingsPanel } from "./upstream-settings-panel";

export const metadata: Metadata = { title: "Upstream settings" };

export default async function AdminSettingsPage() {
  await requireAdmin("/admin/settings");
  return (
    <ConsolePage
      title="Upstream provider"
      description="Where lookups come from, the provider connection and its health. Environment variables win over the values set here."
    >
      <UpstreamSettingsPanel />
    </ConsolePage>
  );
}
