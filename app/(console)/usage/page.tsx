import type { Metadata } from "next";
import { UsageDashboard } from "@/components/usage/usage-dashboard";
import { ConsolePage } from "@/components/ui/page-header";
import { requireUser } from "@/lib/auth/require-user";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireUser("/usage");
  const { keyId } = await searchParams;
  return (
    <ConsolePage
      title="Usage"
      description={
        <>
          Where your credits go: requests, spend, errors and latency of your keys, from the usage record every{" "}
          <code className="font-mono text-foreground">/v1</code> request leaves.{" "}
          <span data-testid="request-log-retention">
            The request log goes back {env().REQUEST_LOG_RETENTION_DAYS} days; totals and charts count every request, older ones too.
          </span>
        </>
      }
    >
      <UsageDashboard key={typeof keyId === "string" ? keyId : "mine"} userId={user.id} isAdmin={user.role === "admin"} initialKeyId={typeof keyId === "string" ? keyId : undefined} />
    </ConsolePage>
  );
}
