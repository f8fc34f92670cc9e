"use client";

import { useId } from "react";
import { bindValue } from "./bind-value";
import { cx } from "./class-names";

/**
 * The reason an administrator gives for a grant of credits (a key's top-up, a team's pool): a
 * required text, kept in the audit log with who gave it, when and from where.
 */
export function ReasonField({
  value,
  onChange,
  error,
  rows = 3,
  testId,
}: {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  rows?: number;
  testId: string;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        Reason
        <span className="ml-0.5 text-danger" aria-hidden="true">
          *
        </span>
      </label>
      <textarea
        id={id}
        required
        rows={rows}
        maxLength={500}
        {...bindValue(value, onChange)}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
        data-testid={testId}
        className={cx(
          "w-full rounded-lg border bg-surface px-3 py-2 text-sm shadow-sm",
          "focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring",
          error ? "border-danger" : "border-border-strong",
        )}
      />
      <p id={`${id}-hint`} className="text-xs text-muted">
        Kept in the audit log with your name, the time and your IP address.
      </p>
      {error ? (
        <p id={`${id}-error`} className="text-xs font-medium text-danger">
          {error}
        </p>
      ) : null}
    </div>
  );
}
