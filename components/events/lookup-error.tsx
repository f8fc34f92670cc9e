"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { Button, buttonStyles } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import {
  chargedNothing,
  isLookupError,
  lookupErrorAction,
  lookupErrorText,
  type LookupSubject,
} from "@/lib/query/lookup";

/**
 * A failed lookup as a human sentence with what to do next (issue 5 "States"), plus whether it
 * cost anything. Generic over the operation: followers and publications pages can use it too.
 */
export type LookupErrorNoticeProps = {
  error: unknown;
  what: LookupSubject;
  /** Offered unless the problem needs fixing elsewhere first; waits out a 429's Retry-After. */
  onRetry?: () => void;
  className?: string;
};

/** Seconds left until a rate-limited lookup may be tried again; counts down once a second. */
const useCountdown = (seconds: number | undefined): number => {
  const [left, setLeft] = useState(seconds ?? 0);
  const [from, setFrom] = useState(seconds);
  if (from !== seconds) {
    setFrom(seconds);
    setLeft(seconds ?? 0);
  }
  useEffect(() => {
    if (left <= 0) return;
    const timer = window.setTimeout(() => setLeft((value) => value - 1), 1000);
    return () => window.clearTimeout(timer);
  }, [left]);
  return left;
};

export function LookupErrorNotice({ error, what, onRetry, className }: LookupErrorNoticeProps) {
  const text = lookupErrorText(error, what);
  const action = lookupErrorAction(error);
  const code = isLookupError(error) ? error.code : "unknown";
  const waitS = useCountdown(isLookupError(error) && error.code === "rate_limited" ? error.retryAfterS : undefined);
  const nothingCharged = chargedNothing(error);
  // The 500 sentence already says it; every other answered failure gets the note.
  const chargeNote = nothingCharged && code !== "server_error" ? "Nothing was charged." : null;
  const canRetry = onRetry !== undefined && action === null && code !== "bad_request" && code !== "not_found";

  return (
    <div
      role="alert"
      data-testid="lookup-error"
      data-code={code}
      className={cx("flex flex-col gap-3 rounded-xl border border-danger/30 bg-danger-soft p-4 text-sm sm:flex-row sm:items-center sm:justify-between", className)}
    >
      <div className="flex min-w-0 flex-col gap-1">
        <p className="font-medium text-danger">{text}</p>
        {chargeNote ? (
          <p className="text-muted" data-testid="lookup-error-charge">
            {chargeNote}
          </p>
        ) : null}
        {isLookupError(error) && error.requestId ? (
          <p className="font-mono text-xs break-all text-muted">Request {error.requestId}</p>
        ) : null}
      </div>
      <div className="flex shrink-0 items-center gap-2">
        {action ? (
          <Link href={action.href} className={buttonStyles({ variant: "secondary", size: "sm" })}>
            {action.label}
          </Link>
        ) : null}
        {canRetry ? (
          <Button variant="secondary" size="sm" onClick={onRetry} disabled={waitS > 0}>
            {waitS > 0 ? `Retry in ${waitS} s` : "Try again"}
          </Button>
        ) : null}
      </div>
    </div>
  );
}
