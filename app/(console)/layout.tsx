import { headers } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { ConsoleNav } from "@/components/console/console-nav";
import { AlertBanner } from "@/components/alerts/alert-banner";
import { CreditMeterSlot } from "@/components/console/credit-meter-slot";
import { ConsoleProviders } from "@/components/console/providers";
import { Badge } from "@/components/ui/badge";
import { CONSOLE_PATH_HEADER, safeCallbackUrl } from "@/lib/auth/callback-url";
import { currentUser } from "@/lib/auth/session";

/**
 * Every signed-in page. proxy.ts only looks for a session cookie; here the session is checked
 * against the database (user exists, is active, session version current).
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) {
    const here = safeCallbackUrl((await headers()).get(CONSOLE_PATH_HEADER));
    redirect(`/signin?callbackUrl=${encodeURIComponent(here)}`);
  }

  return (
    <ConsoleProviders>
      <div className="mx-auto flex w-full max-w-6xl flex-col gap-6 px-4 py-6 sm:px-6 lg:grid lg:grid-cols-[12rem_minmax(0,1fr)] lg:gap-8 lg:py-10">
        <ConsoleNav isAdmin={user.role === "admin"}>
          <CreditMeterSlot />
          <section aria-label="Signed-in account" className="flex flex-col gap-3 border-t border-border pt-4">
            <div className="flex min-w-0 flex-col gap-1.5 px-1">
              <p className="truncate text-sm font-medium" title={user.email}>
                {user.email}
              </p>
              <div className="flex items-center gap-2">
                <Badge variant={user.role === "admin" ? "accent" : "neutral"}>{user.role === "admin" ? "Admin" : "Analyst"}</Badge>
                <Link href="/account" className="text-xs font-medium text-muted underline-offset-2 hover:text-foreground hover:underline">
                  Account
                </Link>
              </div>
            </div>
            <SignOutButton className="w-full" />
          </section>
        </ConsoleNav>
        <div className="flex min-w-0 flex-col gap-4">
          <AlertBanner />
          <div className="min-w-0">{children}</div>
        </div>
      </div>
    </ConsoleProviders>
  );
}
