import Link from "next/link";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

const linkClass = "font-medium text-accent underline underline-offset-4 hover:no-underline";

/**
 * The usage page before any key in scope has made a single request (a brand-new install): what
 * the page will show, and where the first requests come from — instead of a wall of zeros.
 */
export function FirstUse() {
  return (
    <Card data-testid="usage-first-use">
      <CardHeader>
        <CardTitle as="h2">No requests yet</CardTitle>
        <CardDescription>None of the keys in this scope has made a request. Once they do, this page shows:</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4 text-sm leading-relaxed">
        <ul className="list-disc space-y-1 pl-5 text-muted">
          <li>requests, successes, credits spent, error rate and credits remaining for the period;</li>
          <li>charts of credits per day, requests by status, credits by key and latency per operation;</li>
          <li>a burn-rate forecast: when each key runs out at its recent rate of spend;</li>
          <li>the request log, with filters, and both as CSV downloads.</li>
        </ul>
        <p className="text-muted">
          Every lookup counts, from the console or from the API. Run one on the{" "}
          <Link href="/events" className={linkClass}>
            Events
          </Link>
          ,{" "}
          <Link href="/followers" className={linkClass}>
            Followers
          </Link>{" "}
          or{" "}
          <Link href="/publications" className={linkClass}>
            Publications
          </Link>{" "}
          page, or call the API with a key from{" "}
          <Link href="/keys" className={linkClass}>
            Keys
          </Link>{" "}
          (see the{" "}
          <Link href="/api-docs" className={linkClass}>
            API reference
          </Link>
          ).
        </p>
      </CardContent>
    </Card>
  );
}
