import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUser } from "@/lib/auth/session";
import { ProviderKeyPanel } from "./provider-key-panel";

export const metadata: Metadata = { title: "Provider key" };

export default async function ProviderKeyPage() {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Faccount%2Fprovider-key");

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Provider key</h1>
        <p className="text-sm text-muted">
          The key of your own account at the data provider. Lookups that are not in our cache go to the provider with
          it, from the console and from your API keys alike; our credits and usage pages still count every lookup.
        </p>
      </div>
      <ProviderKeyPanel />
    </div>
  );
}
