"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { keysQueryKey, refreshAfterKeyChange, revokeKey, type ApiKeyView } from "@/lib/query/keys";
import { KeyDialogFooter, type KeyDialogProps } from "./key-dialog-footer";

/** Body of the "Revoke key" dialog: one confirming click, effective at once. */
export function RevokeKeyForm({ apiKey, onRevoked, onCancel }: KeyDialogProps & { onRevoked: (key: ApiKeyView) => void }) {
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
      <KeyDialogFooter
        action="revoke"
        mutation={mutation}
        onCancel={onCancel}
        confirmLabel="Revoke key"
        pendingLabel="Revoking…"
        onConfirm={() => mutation.mutate()}
        danger
      />
    </>
  );
}
