import type { Metadata } from "next";
import { Suspense } from "react";
import { EventsLookup } from "@/components/events/events-lookup";
import { eventLookupCost } from "@/lib/query/events";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Events" };

/** Event lookups by page URL or id. The console layout has checked the session already. */
export default function EventsPage() {
  const config = env();
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Events</h1>
        <p className="text-sm text-muted">
          Look up an event by its page URL or its id. Each lookup costs {eventLookupCost} credits from your console key; a
          failed lookup costs nothing.
        </p>
      </div>
      {/* useSearchParams (?q=) needs a boundary; the fallback is the empty form's shape. */}
      <Suspense fallback={<div className="h-40 animate-pulse rounded-xl bg-surface-muted" />}>
        <EventsLookup hosts={config.EVENTSITE_HOSTS} publicOrigin={new URL(config.publicUrl).origin} />
      </Suspense>
    </div>
  );
}
