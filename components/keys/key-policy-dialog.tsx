"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { keysQueryKey, refreshAfterKeyChange, updateKeyPolicy, type ApiKeyView, type KeyPolicyInput } from "@/lib/query/keys";
import { KeyDialogFooter, type KeyDialogProps } from "./key-dialog-footer";
import { KeyPolicyFieldset, policyFieldsOf, policyInput, type PolicyErrors } from "./key-policy-fields";

/** Body of the "Limits" dialog: what the key may call, from where, its refill and its alert thresholds. */
export function KeyPolicyForm({ apiKey, onCancel, onSaved }: KeyDialogProps & { onSaved: (key: ApiKeyView) => void }) {
  const queryClient = useQueryClient();
  const [fields, setFields] = useState(() => policyFieldsOf(apiKey));
  const [errors, setErrors] = useState<PolicyErrors>({});
  const mutation = useMutation({
    mutationKey: [...keysQueryKey, "policy"],
    mutationFn: (input: KeyPolicyInput) => updateKeyPolicy(apiKey.id, input),
    onSettled: () => refreshAfterKeyChange(queryClient),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const checked = policyInput(fields);
    setErrors(checked.errors);
    if (!checked.input) return;
    mutation.mutate(checked.input, { onSuccess: onSaved });
  };

  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-4 sm:grid-cols-2" data-testid="limits-form">
      <KeyPolicyFieldset fields={fields} errors={errors} onChange={setFields} testIdPrefix="limits" />
      <div className="sm:col-span-2">
        <KeyDialogFooter action="limits" mutation={mutation} onCancel={onCancel} confirmLabel="Save limits" pendingLabel="Saving…" />
      </div>
    </form>
  );
}
