import Link from "next/link";
import type { ReactNode } from "react";
import { AlertBanner } from "@/components/alerts/alert-banner";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { ConsoleNav } from "@/components/console/console-nav";
import { CreditMeterSlot } from "@/components/console/credit-meter-slot";
import { ConsoleProviders } from "@/components/console/providers";
import { CreditMeter } from "@/components/credit-meter";
import { Badge } from "@/components/ui/badge";
import { WorkspaceSwitcher } from "@/components/workspaces/workspace-switcher";
import type { User } from "@/lib/users/repository";

/**
 * The console around a signed-in page: the navigation (a sidebar, a menu on narrow screens with
 * a compact credit meter beside it), the credit meter, the account block and the alert banner.
 * The console's pages use it through their layout; the API reference uses it when signed in.
 */
export function ConsoleShell({ user, children }: { user: Pick<User, "email" | "role">; children: ReactNode }) {
  return (
    <ConsoleProviders>
      <div data-console-shell="" className="mx-auto flex w-full max-w-6xl flex-col gap-6 px-4 py-6 sm:px-6 lg:grid lg:grid-cols-[12rem_minmax(0,1fr)] lg:gap-8 lg:py-10">
        <ConsoleNav isAdmin={user.role === "admin"} compactMeter={<CreditMeter compact />}>
          <WorkspaceSwitcher />
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
