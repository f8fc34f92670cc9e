import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { KeyAlertsPanel } from "@/components/alerts/key-alerts-panel";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Key alerts and budget" };

/** A key's low-credit alert, webhook, daily budget and delivery log. Ownership is checked by the API (404). */
export default async function KeyAlertsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await currentUser();
  if (!user) redirect(`/signin?callbackUrl=${encodeURIComponent(`/usage/keys/${id}`)}`);

  return (
    <div className="flex flex-col gap-4">
      <nav aria-label="Breadcrumb" className="text-sm text-muted">
        <Link href="/usage" className="underline-offset-2 hover:text-foreground hover:underline">
          Usage
        </Link>{" "}
        / Alerts and budget
      </nav>
      <KeyAlertsPanel keyId={id} />
    </div>
  );
}
