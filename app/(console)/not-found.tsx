import Link from "next/link";
import { buttonStyles } from "@/components/ui/button";

/** Console pages that do not exist, or that this account may not see (same answer, on purpose). */
export default function ConsoleNotFound() {
  return (
    <div className="flex flex-col items-start gap-3 py-10">
      <p className="text-sm font-semibold text-accent">404</p>
      <h1 className="text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="max-w-prose text-sm text-muted">This page does not exist, or your account cannot open it.</p>
      <Link href="/events" className={buttonStyles({ variant: "secondary", className: "mt-2" })}>
        Back to the console
      </Link>
    </div>
  );
}
