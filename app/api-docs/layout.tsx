import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/console/console-shell";
import { currentUser } from "@/lib/auth/session";

/**
 * The API reference is public; signed in, it opens inside the console (its navigation, credit
 * meter and account block), where the console's "API" link leads.
 */
export default async function ApiDocsLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  return user ? <ConsoleShell user={user}>{children}</ConsoleShell> : children;
}
