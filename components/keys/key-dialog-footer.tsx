"use client";

import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-alert";
import { ModalActions } from "@/components/ui/modal";
import type { ApiKeyView } from "@/lib/query/keys";
import { errorMessage } from "./format";

/** What every key dialog's body is given: the key it acts on and a way out. */
export type KeyDialogProps = { apiKey: ApiKeyView; onCancel: () => void };

/** The state of the one mutation a key dialog runs. */
type DialogMutation = { isPending: boolean; isError: boolean; error: unknown };

/**
 * The end of every key dialog: the failure, if any, then Cancel and the confirming button.
 * Without `onConfirm` the confirming button submits the dialog's form.
 */
export function KeyDialogFooter({
  action,
  mutation,
  onCancel,
  confirmLabel,
  pendingLabel,
  onConfirm,
  danger = false,
}: {
  action: string;
  mutation: DialogMutation;
  onCancel: () => void;
  confirmLabel: string;
  pendingLabel: string;
  onConfirm?: () => void;
  danger?: boolean;
}) {
  return (
    <>
      <FormError message={mutation.isError ? errorMessage(mutation.error) : null} testId="dialog-error" />
      <ModalActions>
        <Button variant="secondary" onClick={onCancel} disabled={mutation.isPending} data-testid={`cancel-${action}`}>
          Cancel
        </Button>
        <Button
          type={onConfirm ? "button" : "submit"}
          variant={danger ? "danger" : "primary"}
          onClick={onConfirm}
          disabled={mutation.isPending}
          data-testid={`confirm-${action}`}
        >
          {mutation.isPending ? pendingLabel : confirmLabel}
        </Button>
      </ModalActions>
    </>
  );
}
