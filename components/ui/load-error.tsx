"use client";

import { ConsoleApiError } from "@/lib/query/fetch-json";
import { Button } from "./button";
import { FormError } from "./form-alert";

/** The server refused (403): asking again cannot help, and its sentence says why. */
export const isRefusal = (error: unknown): error is ConsoleApiError => error instanceof ConsoleApiError && error.status === 403;

/** Something the viewer may not see: the reason, announced, in a neutral box, with nothing to retry. */
export function NotAllowed({ message, testId }: { message: string; testId: string }) {
  return (
    <p role="status" data-testid={testId} className="rounded-lg border border-border bg-surface-muted px-3 py-2 text-sm text-foreground">
      {message}
    </p>
  );
}

/**
 * Something could not be loaded: the reason, announced, and a way to ask again — unless `error`
 * is the server's refusal (403), which is shown as its sentence alone.
 */
export function LoadError({ message, testId, onRetry, error }: { message: string; testId: string; onRetry: () => void; error?: unknown }) {
  if (isRefusal(error)) return <NotAllowed message={error.message} testId={testId} />;
  return (
    <div className="flex flex-col items-start gap-3">
      <FormError message={message} testId={testId} />
      <Button variant="secondary" size="sm" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}
