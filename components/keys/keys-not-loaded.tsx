"use client";

import { LoadError } from "@/components/ui/load-error";
import { errorMessage } from "./format";

/** The key list while it has no data: loading, or failed with a way to ask again. */
export function KeysNotLoaded({ keys }: { keys: { isPending: boolean; error: unknown; refetch: () => Promise<unknown> } }) {
  if (keys.isPending) {
    return (
      <p role="status" className="text-sm text-muted">
        Loading keys…
      </p>
    );
  }
  return (
    <LoadError message={`The keys could not be loaded: ${errorMessage(keys.error)}`} testId="keys-error" onRetry={() => void keys.refetch()} />
  );
}
