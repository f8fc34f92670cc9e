"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { WholeNumberInput } from "@/components/ui/input";
import { keysQueryKey, refreshAfterKeyChange, topUpKey, type ApiKeyView } from "@/lib/query/keys";
import { FormError } from "@/components/ui/form-alert";
import { ReasonField } from "@/components/ui/reason-field";
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
      <ReasonField value={reason} onChange={setReason} error={reasonError} rows={3} testId="topup-reason" />
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
