"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { WholeNumberInput } from "@/components/ui/input";
import { keysQueryKey, refreshAfterKeyChange, topUpKey, type ApiKeyView } from "@/lib/query/keys";
import { FormError } from "@/components/ui/form-alert";
import { errorMessage, formatCount, parseWholeNumber } from "./format";
import { bindValue } from "@/components/ui/bind-value";

const MAX_TOP_UP = 1_000_000_000;

type FieldErrors = Partial<Record<"credits" | "reason", string>>;

/** Admin: adds credits to one key; the reason goes to the audit log with the change. */
export function TopUpForm({
  apiKey,
  onToppedUp,
  cancel,
}: {
  apiKey: ApiKeyView;
  onToppedUp: (key: ApiKeyView, credits: number) => void;
  /** Rendered before the submit button, e.g. a dialog's Cancel. */
  cancel?: ReactNode;
}) {
  const queryClient = useQueryClient();
  const [credits, setCredits] = useState("");
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const reasonId = useId();
  const mutation = useMutation({
    mutationKey: [...keysQueryKey, "topup"],
    mutationFn: (input: { credits: number; reason: string }) => topUpKey(apiKey.id, input),
    onSettled: () => refreshAfterKeyChange(queryClient),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const amount = parseWholeNumber(credits);
    const trimmedReason = reason.trim();
    const found: FieldErrors = {};
    if (amount === null || amount < 1 || amount > MAX_TOP_UP)
      found.credits = `Enter a whole number from 1 to ${formatCount(MAX_TOP_UP)}.`;
    if (trimmedReason.length < 3) found.reason = "Give a reason (at least 3 characters); it goes to the audit log.";
    else if (trimmedReason.length > 500) found.reason = "Keep the reason to 500 characters or fewer.";
    setErrors(found);
    if (amount === null || Object.keys(found).length > 0) return;
    mutation.mutate(
      { credits: amount, reason: trimmedReason },
      {
        onSuccess: (key) => {
          setCredits("");
          setReason("");
          onToppedUp(key, amount);
        },
      },
    );
  };

  const reasonError = errors.reason;
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" data-testid="topup-form">
      <WholeNumberInput
        label="Credits to add"
        required
        min={1}
        max={MAX_TOP_UP}
        {...bindValue(credits, setCredits)}
        error={errors.credits}
        hint={`Now ${formatCount(apiKey.creditsRemaining)} of ${formatCount(apiKey.creditsGranted)} credits left.`}
        data-testid="topup-credits"
      />
      <div className="flex flex-col gap-1.5">
        <label htmlFor={reasonId} className="text-sm font-medium">
          Reason
          <span className="ml-0.5 text-danger" aria-hidden="true">
            *
          </span>
        </label>
        <textarea
          id={reasonId}
          required
          rows={3}
          maxLength={500}
          {...bindValue(reason, setReason)}
          aria-invalid={reasonError ? true : undefined}
          aria-describedby={`${reasonId}-hint${reasonError ? ` ${reasonId}-error` : ""}`}
          data-testid="topup-reason"
          className={cx(
            "w-full rounded-lg border bg-surface px-3 py-2 text-sm shadow-sm",
            "focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring",
            reasonError ? "border-danger" : "border-border-strong",
          )}
        />
        <p id={`${reasonId}-hint`} className="text-xs text-muted">
          Kept in the audit log with your name, the time and your IP address.
        </p>
        {reasonError ? (
          <p id={`${reasonId}-error`} className="text-xs font-medium text-danger">
            {reasonError}
          </p>
        ) : null}
      </div>
      <FormError message={mutation.isError ? errorMessage(mutation.error) : null} testId="dialog-error" />
      <div className="flex flex-col-reverse gap-2 pt-1 sm:flex-row sm:justify-end">
        {cancel}
        <Button type="submit" disabled={mutation.isPending} data-testid="confirm-topup">
          {mutation.isPending ? "Adding…" : "Add credits"}
        </Button>
      </div>
    </form>
  );
}
