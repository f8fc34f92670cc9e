import type { Metadata } from "next";
import { BatchesConsole } from "@/components/batches/batches-console";
import { batchOperations, batchOperationView } from "@/lib/batches/operations";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Batches" };
export const dynamic = "force-dynamic";

export default function BatchesPage() {
  const config = env();
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Batches</h1>
        <p className="text-sm text-muted">
          Look up a whole list at once: the server runs it with your console key, paced under the key&apos;s per-second limit,
          capped at the credits you choose. Results come out as a table, a CSV (one row per record) and NDJSON.
        </p>
      </div>
      <BatchesConsole
        operations={batchOperations().map(batchOperationView)}
        limits={{ eventSiteHosts: [...config.EVENTSITE_HOSTS], maxInputs: config.BATCH_MAX_INPUTS, maxPages: config.BATCH_MAX_PAGES }}
      />
    </div>
  );
}
