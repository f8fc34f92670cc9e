"use client";

import Link from "next/link";
import { useSelectedLayoutSegment } from "next/navigation";
import { useEffect, useState } from "react";
import { signedInEmail } from "@/lib/query/account";
import { SignOutButton } from "./sign-out-button";

// A page inside the console shell (the API reference, signed in) has the account block in the
// shell: the header's corner stays empty there, so the page has one account block and one Sign out.
const outsideShell = "[body:has([data-console-shell])_&]:hidden";

const signInLinkClass =
  "rounded-md border border-border-strong bg-surface px-3 py-1.5 text-sm font-medium whitespace-nowrap text-foreground shadow-sm transition-colors hover:bg-surface-muted";

/**
 * The account corner of the site header. Console pages show the account in their own shell, so
 * this stays empty there; public pages ask next-auth whether a session cookie is present (no
 * database work) and offer the console and "Sign out", or "Sign in". The server-rendered HTML
 * always holds the "Sign in" link, so the header works without JavaScript.
 */
export function HeaderAccount() {
  const segment = useSelectedLayoutSegment();
  const inConsole = segment === "(console)";
  const [email, setEmail] = useState<string | null | undefined>(undefined);

  useEffect(() => {
    if (inConsole || email !== undefined) return;
    let cancelled = false;
    signedInEmail()
      .then((found) => {
        if (!cancelled) setEmail(found);
      })
      .catch(() => {
        if (!cancelled) setEmail(null);
      });
    return () => {
      cancelled = true;
    };
  }, [inConsole, email]);

  if (inConsole) return null;
  if (email) {
    return (
      <>
        <li className={`hidden max-w-48 truncate px-1 text-sm text-muted md:block ${outsideShell}`} title={email}>
          {email}
        </li>
        <li className={outsideShell}>
          <Link
            href="/events"
            className="rounded-md px-2.5 py-1.5 text-sm font-medium whitespace-nowrap text-muted transition-colors hover:bg-surface-muted hover:text-foreground"
          >
            Console
          </Link>
        </li>
        {/* Narrow screens keep the header on one line; "Sign out" is one tap away in the console menu. */}
        <li className={`hidden sm:block ${outsideShell}`}>
          <SignOutButton />
        </li>
      </>
    );
  }
  if (segment === "signin") return null;
  return (
    <li className={outsideShell}>
      {/* Not prefetched: sign-in is a one-off step, not worth a request on every public page view. */}
      <Link href="/signin" prefetch={false} className={signInLinkClass}>
        Sign in
      </Link>
    </li>
  );
}
