import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/console/console-shell";
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

  return <ConsoleShell user={user}>{children}</ConsoleShell>;
}
