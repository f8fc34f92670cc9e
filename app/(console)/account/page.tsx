import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AccountSummary } from "@/components/account/account-summary";
import { ChangePasswordForm } from "@/components/account/change-password-form";
import { SignOutEverywhere } from "@/components/account/sign-out-everywhere";
import { currentUser } from "@/lib/auth/session";
import { env } from "@/lib/env";
import { toMe } from "@/lib/users/views";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Faccount");
  const me = toMe(user);

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Account</h1>
        <p className="text-sm text-muted">Your sign-in details, credit allowance and sessions.</p>
      </div>
      <AccountSummary initialMe={me} />
      {env().UPSTREAM_KEY_MODE === "per-user" ? (
        <p className="text-sm">
          Lookups go to the provider with your own key:{" "}
          <Link href="/account/provider-key" className="font-medium text-accent underline-offset-4 hover:underline">
            manage your provider key
          </Link>
          .
        </p>
      ) : null}
      <ChangePasswordForm email={me.email} />
      <SignOutEverywhere />
    </div>
  );
}
