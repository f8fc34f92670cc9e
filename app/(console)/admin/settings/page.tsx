import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { currentUser } from "@/lib/auth/session";
import { UpstreamSettingsPanel } from "./upstream-settings-panel";

export const metadata: Metadata = { title: "Upstream settings" };

export default async function AdminSettingsPage() {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Fadmin%2Fsettings");
  // Analysts learn nothing about this page, not even that it exists.
  if (user.role !== "admin") notFound();

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Upstream provider</h1>
        <p className="text-sm text-muted">
          Where lookups come from, the provider connection and its health. Environment variables win over the values
          set here.
        </p>
      </div>
      <UpstreamSettingsPanel />
    </div>
  );
}
