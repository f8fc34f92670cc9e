"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { keysQueryKey, refreshAfterKeyChange, revokeKey, type ApiKeyView } from "@/lib/query/keys";
import { FormError } from "@/components/ui/form-alert";
import { errorMessage } from "./format";
import { ModalActions } from "@/components/ui/modal";

/** Body of the "Revoke key" dialog: one confirming click, effective at once. */
export function RevokeKeyForm({
  apiKey,
  onRevoked,
  onCancel,
}: {
  apiKey: ApiKeyView;
  onRevoked: (key: ApiKeyView) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationKey: [...keysQueryKey, "revoke"],
    mutationFn: () => revokeKey(apiKey.id),
    onSuccess: onRevoked,
    onSettled: () => refreshAfterKeyChange(queryClient),
  });

  return (
    <>
      <p className="text-sm">
        Requests with <strong className="font-semibold">{apiKey.name}</strong>{" "}
        <span className="font-mono text-muted">({apiKey.tokenHint})</span> will be refused at once
        {apiKey.isConsoleKey ? ", and the console will no longer run lookups with it" : ""}. This cannot be undone.
      </p>
      <FormError message={mutation.isError ? errorMessage(mutation.error) : null} testId="dialog-error" />
      <ModalActions>
        <Button variant="secondary" onClick={onCancel} disabled={mutation.isPending} data-testid="cancel-revoke">
          Cancel
        </Button>
        <Button
          variant="danger"
          onClick={() => mutation.mutate()}
          disabled={mutation.isPending}
          data-testid="confirm-revoke"
        >
          {mutation.isPending ? "Revoking…" : "Revoke key"}
        </Button>
      </ModalActions>
    </>
  );
}
