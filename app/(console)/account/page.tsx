import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AccountSummary } from "@/components/account/account-summary";
import { ChangePasswordForm } from "@/components/account/change-password-form";
import { SignOutEverywhere } from "@/components/account/sign-out-everywhere";
import { currentUser } from "@/lib/auth/session";
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
      <ChangePasswordForm email={me.email} />
      <SignOutEverywhere />
    </div>
  );
}
