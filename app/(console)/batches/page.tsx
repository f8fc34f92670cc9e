import type { Metadata } from "next";
import { BatchesConsole } from "@/components/batches/batches-console";
import { ConsolePage } from "@/components/ui/page-header";
import { batchOperations, batchOperationView } from "@/lib/batches/operations";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Batches" };
export const dynamic = "force-dynamic";

export default function BatchesPage() {
  const config = env();
  return (
    <ConsolePage
      title="Batches"
      description={
        <>
          Look up a whole list at once: the server runs it with your console key, paced under the key&apos;s per-second limit,
          capped at the credits you choose. Results come out as a table, a CSV (one row per record) and NDJSON.
        </>
      }
    >
      <BatchesConsole
        operations={batchOperations().map(batchOperationView)}
        limits={{ eventSiteHosts: [...config.EVENTSITE_HOSTS], maxInputs: config.BATCH_MAX_INPUTS, maxPages: config.BATCH_MAX_PAGES }}
      />
    </ConsolePage>
  );
}
