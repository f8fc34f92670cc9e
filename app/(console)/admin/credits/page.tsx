import type { Metadata } from "next";
import Link from "next/link";
import { CreditTopUp } from "@/components/keys/credit-top-up";
import { ConsolePage } from "@/components/ui/page-header";
import { requireAdmin } from "@/lib/auth/require-user";

export const metadata: Metadata = { title: "Credits" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** `?key=<id>` preselects a key (e.g. from a link in another page). */
export default async function AdminCreditsPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin("/admin/credits");
  const { key } = await searchParams;
  return (
    <ConsolePage
      title="Credits"
      description={
        <>
          Top up any key. Every top-up is recorded with its reason in the{" "}
          <Link href="/admin/audit" className="font-medium text-accent underline-offset-2 hover:underline">
            audit log
          </Link>
          .
        </>
      }
    >
      <CreditTopUp initialKeyId={typeof key === "string" ? key : null} />
    </ConsolePage>
  );
}
