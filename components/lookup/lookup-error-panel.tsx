"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { Button, buttonStyles } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { lookupErrorAction, lookupErrorText, type LookupSubject } from "@/lib/query/lookup-copy";
import { chargedNothing, isLookupError } from "@/lib/query/lookup-error";

export type LookupErrorPanelProps = {
  error: unknown;
  /** What was looked up: "event" → "No such event.", "user" → "No such user.", … */
  subject: LookupSubject;
  /** When the error arrived (the query's errorUpdatedAt): the 429 countdown starts there. */
  errorAt: number;
  /** Offered for failures that may pass on a second try (429, 5xx, network, 402 after a top-up). */
  onRetry?: () => void;
  retrying?: boolean;
  className?: string;
};

/** Worth a second try as is, or after fixing things elsewhere (a top-up, another console key). */
const RETRYABLE = new Set(["rate_limited", "server_error", "network_error", "out_of_credits", "no_console_key", "key_rejected"]);

/** Whole seconds left until `deadline`, ticking once a second; 0 once it has passed. */
const useSecondsUntil = (deadline: number): number => {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (Date.now() >= deadline) return;
    const timer = window.setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= deadline) window.clearInterval(timer);
    }, 250);
    return () => window.clearInterval(timer);
  }, [deadline]);
  return Math.max(0, Math.ceil((deadline - now) / 1000));
};

/**
 * A failed lookup as a sentence with what to do next (docs/decisions.md "Console"): 402 → out of credits
 * and a link to Keys, 429 → a countdown and Retry, 404 → "No such …", 400 → the sentence (the
 * form highlights the field). Says so when the failure cost nothing. Shared by every lookup page.
 */
export function LookupErrorPanel({ error, subject, errorAt, onRetry, retrying = false, className }: LookupErrorPanelProps) {
  const code = isLookupError(error) ? error.code : "server_error";
  const retryAfterS = isLookupError(error) ? (error.retryAfterS ?? 0) : 0;
  const secondsLeft = useSecondsUntil(code === "rate_limited" ? errorAt + retryAfterS * 1000 : 0);
  const action = lookupErrorAction(error);
  const text =
    code === "rate_limited"
      ? secondsLeft > 0
        ? `Too many requests — retry in ${secondsLeft} s.`
        : "Too many requests — you can retry now."
      : lookupErrorText(error, subject);
  const canRetry = onRetry !== undefined && RETRYABLE.has(code);

  return (
    <div
      role="alert"
      data-testid="lookup-error"
      data-code={code}
      className={cx(
        "flex flex-col gap-3 rounded-xl border border-danger/30 bg-danger-soft px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between",
        className,
      )}
    >
      <div className="flex min-w-0 flex-col gap-0.5">
        <p className="font-medium text-danger">{text}</p>
        {chargedNothing(error) && code !== "server_error" ? (
          <p className="text-xs text-muted" data-testid="lookup-error-charge">
            Nothing was charged.
          </p>
        ) : null}
        {isLookupError(error) && error.requestId ? (
          <p className="font-mono text-xs break-all text-muted">Request {error.requestId}</p>
        ) : null}
      </div>
      <div className="flex shrink-0 flex-wrap items-center gap-2">
        {action ? (
          <Link href={action.href} className={buttonStyles({ variant: "secondary", size: "sm" })}>
            {action.label}
          </Link>
        ) : null}
        {canRetry ? (
          <Button variant="secondary" size="sm" onClick={onRetry} disabled={retrying || secondsLeft > 0}>
            {retrying ? "Retrying…" : code === "rate_limited" && secondsLeft > 0 ? `Retry (${secondsLeft} s)` : "Retry"}
          </Button>
        ) : null}
      </div>
    </div>
  );
}
