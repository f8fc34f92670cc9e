"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { RadioCardGroup } from "@/components/ui/radio-card";
import {
  keysQueryKey,
  refreshAfterKeyChange,
  rollKey,
  type ApiKeyView,
  type GracePeriod,
  type IssuedKey,
} from "@/lib/query/keys";
import { KeyDialogFooter, type KeyDialogProps } from "./key-dialog-footer";

const graceOptions: ReadonlyArray<{ value: GracePeriod; label: string; hint: string }> = [
  { value: "none", label: "No grace period", hint: "The current token stops working at once." },
  { value: "1h", label: "1 hour", hint: "The current token keeps working for one more hour." },
  { value: "24h", label: "24 hours", hint: "The current token keeps working for one more day." },
];

export const graceNote = (grace: GracePeriod): string =>
  grace === "none"
    ? "The previous token no longer works."
    : `The previous token keeps working for ${grace === "1h" ? "1 hour" : "24 hours"}.`;

/** Body of the "Roll key" dialog: pick a grace period, get a new token (shown by the parent). */
export function RollKeyForm({
  apiKey,
  onRolled,
  onCancel,
}: KeyDialogProps & { onRolled: (rolled: IssuedKey, grace: GracePeriod) => void }) {
  const queryClient = useQueryClient();
  const [grace, setGrace] = useState<GracePeriod>("1h");
  const mutation = useMutation({
    mutationKey: [...keysQueryKey, "roll"],
    mutationFn: (chosen: GracePeriod) => rollKey(apiKey.id, chosen),
    // The response holds the new token: keep no copy in the mutation cache.
    gcTime: 0,
    onSettled: () => refreshAfterKeyChange(queryClient),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    mutation.mutate(grace, {
      onSuccess: (rolled) => {
        onRolled(rolled, grace);
        mutation.reset();
      },
    });
  };

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4">
      <RadioCardGroup
        legend={<>How long may the current token ({apiKey.tokenHint}) keep working?</>}
        legendClassName="mb-2 text-sm font-medium"
        name="grace"
        options={graceOptions}
        valueOf={(option) => option.value}
        selected={grace}
        onSelect={setGrace}
        testId={(value) => `grace-${value}`}
        describe={(option) => (
          <>
            <span className="text-sm font-medium">{option.label}</span>
            <span className="text-xs text-muted">{option.hint}</span>
          </>
        )}
      />
      <KeyDialogFooter action="roll" mutation={mutation} onCancel={onCancel} confirmLabel="Roll key" pendingLabel="Rolling…" />
    </form>
  );
}
