import type { Metadata } from "next";
import Link from "next/link";
import { AccountSummary } from "@/components/account/account-summary";
import { ChangePasswordForm } from "@/components/account/change-password-form";
import { SignOutEverywhere } from "@/components/account/sign-out-everywhere";
import { ConsolePage } from "@/components/ui/page-header";
import { requireUser } from "@/lib/auth/require-user";
import { env } from "@/lib/env";
import { toMe } from "@/lib/users/views";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const me = toMe(await requireUser("/account"));

  return (
    <ConsolePage title="Account" description="Your sign-in details, credit allowance and sessions.">
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
    </ConsolePage>
  );
}
