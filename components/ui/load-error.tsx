"use client";

import { Button } from "./button";
import { FormError } from "./form-alert";

/** Something could not be loaded: the reason, announced, and a way to ask again. */
export function LoadError({ message, testId, onRetry }: { message: string; testId: string; onRetry: () => void }) {
  return (
    <div className="flex flex-col items-start gap-3">
      <FormError message={message} testId={testId} />
      <Button variant="secondary" size="sm" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}
