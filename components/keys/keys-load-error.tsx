"use client";

import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-alert";
import { errorMessage } from "./format";

/** The key list could not be loaded: the reason and a way to ask again. */
export function KeysLoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div className="flex flex-col items-start gap-3">
      <FormError message={`The keys could not be loaded: ${errorMessage(error)}`} testId="keys-error" />
      <Button variant="secondary" size="sm" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}
