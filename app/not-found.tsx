import type { Metadata } from "next";
import Link from "next/link";
import { buttonStyles } from "@/components/ui/button";

export const metadata: Metadata = { title: "Page not found" };

/** Any address the app does not serve: the site's header, font and colours, and ways back. */
export default function NotFound() {
  return (
    <div className="mx-auto flex max-w-6xl flex-col items-start gap-3 px-4 py-16 sm:px-6 sm:py-24">
      <p className="text-sm font-semibold text-accent">404</p>
      <h1 className="text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="max-w-prose text-sm text-muted">There is nothing at this address. Check the link, or start again from the home page.</p>
      <div className="mt-2 flex flex-wrap gap-2">
        <Link href="/" className={buttonStyles({ variant: "secondary" })}>
          Back to the home page
        </Link>
        <Link href="/api-docs" className={buttonStyles({ variant: "ghost" })}>
          API reference
        </Link>
      </div>
    </div>
  );
}
