import type { Metadata } from "next";
import { Suspense } from "react";
import { EventsLookup } from "@/components/events/events-lookup";
import { ConsolePage } from "@/components/ui/page-header";
import { eventLookupCost } from "@/lib/query/events";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Events" };

/** Event lookups by page URL or id. The console layout has checked the session already. */
export default function EventsPage() {
  const config = env();
  return (
    <ConsolePage
      title="Events"
      description={`Look up an event by its page URL or its id. Each lookup costs ${eventLookupCost} credits from your console key; a failed lookup costs nothing.`}
    >
      {/* useSearchParams (?q=) needs a boundary; the fallback is the empty form's shape. */}
      <Suspense fallback={<div className="h-40 animate-pulse rounded-xl bg-surface-muted" />}>
        <EventsLookup hosts={config.EVENTSITE_HOSTS} publicOrigin={new URL(config.publicUrl).origin} />
      </Suspense>
    </ConsolePage>
  );
}
