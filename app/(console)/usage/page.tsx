import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { UsageDashboard } from "@/components/usage/usage-dashboard";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Fusage");
  const { keyId } = await searchParams;

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Usage</h1>
        <p className="text-sm text-muted">
          Where your credits go: requests, spend, errors and latency of your keys, from the usage record every{" "}
          <code className="font-mono text-foreground">/v1</code> request leaves.
        </p>
      </div>
      <UsageDashboard key={typeof keyId === "string" ? keyId : "mine"} userId={user.id} isAdmin={user.role === "admin"} initialKeyId={typeof keyId === "string" ? keyId : undefined} />
    </div>
  );
}
