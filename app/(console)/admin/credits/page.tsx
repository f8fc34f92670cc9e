import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { CreditTopUp } from "@/components/keys/credit-top-up";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Credits" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** `?key=<id>` preselects a key (e.g. from a link in another page). */
export default async function AdminCreditsPage({ searchParams }: { searchParams: SearchParams }) {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Fadmin%2Fcredits");
  // Analysts learn nothing about this page, not even that it exists.
  if (user.role !== "admin") notFound();
  const { key } = await searchParams;

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Credits</h1>
        <p className="text-sm text-muted">
          Top up any key. Every top-up is recorded with its reason in the{" "}
          <Link href="/admin/audit" className="font-medium text-accent underline-offset-2 hover:underline">
            audit log
          </Link>
          .
        </p>
      </div>
      <CreditTopUp initialKeyId={typeof key === "string" ? key : null} />
    </div>
  );
}
