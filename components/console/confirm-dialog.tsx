"use client";

import type { FormEvent, ReactNode } from "react";
import { Button, type ButtonVariant } from "@/components/ui/button";
import { Modal, ModalActions } from "@/components/ui/modal";

export type ConfirmDialogProps = {
  open: boolean;
  title: string;
  /** What happens, in a sentence or two. */
  description?: ReactNode;
  /** Extra fields (a new password, an amount); their values arrive in `onConfirm`'s FormData. */
  children?: ReactNode;
  confirmLabel: string;
  pendingLabel?: string;
  variant?: Extract<ButtonVariant, "primary" | "danger">;
  pending?: boolean;
  /** The server's message (or a client-side hint) shown above the buttons. */
  error?: string;
  onConfirm: (form: FormData) => void;
  onClose: () => void;
};

/** A confirmation on the shared modal: stays open while pending and after an error. */
export function ConfirmDialog({
  open,
  title,
  description,
  children,
  confirmLabel,
  pendingLabel,
  variant = "primary",
  pending = false,
  error,
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!pending) onConfirm(new FormData(event.currentTarget));
  };

  return (
    <Modal open={open} onClose={onClose} title={title} description={description} busy={pending}>
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        {children}
        <div role="alert" className="empty:hidden">
          {error ? (
            <p className="rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm font-medium text-danger">{error}</p>
          ) : null}
        </div>
        <ModalActions>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" variant={variant} disabled={pending} aria-busy={pending || undefined}>
            {pending ? (pendingLabel ?? `${confirmLabel}…`) : confirmLabel}
          </Button>
        </ModalActions>
      </form>
    </Modal>
  );
}
