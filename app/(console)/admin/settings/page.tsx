import type { Metadata } from "next";
import { adminPage } from "@/components/console/console-page";
import { UpstreamSettingsPanel } from "./upstream-settings-panel";

export const metadata: Metadata = { title: "Upstream settings" };

export default adminPage("/admin/settings", {
  title: "Upstream provider",
  description: "Where lookups come from, the provider connection and its health. Environment variables win over the values set here.",
  content: <UpstreamSettingsPanel />,
});
