"use client";

import { KeysLoadError } from "./keys-load-error";

/** The key list while it has no data: loading, or failed with a way to ask again. */
export function KeysNotLoaded({ keys }: { keys: { isPending: boolean; error: unknown; refetch: () => Promise<unknown> } }) {
  if (keys.isPending) {
    return (
      <p role="status" className="text-sm text-muted">
        Loading keys…
      </p>
    );
  }
  return <KeysLoadError error={keys.error} onRetry={() => void keys.refetch()} />;
}
