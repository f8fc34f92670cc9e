"use client";

import { useEffect, useId, useRef, type FormEvent, type ReactNode } from "react";
import { Button, type ButtonVariant } from "@/components/ui/button";

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

/**
 * A modal confirmation on the native <dialog>: focus moves in and is trapped, Escape cancels,
 * focus returns to the opener on close. Stays open while pending and after an error.
 */
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
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const errorId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!pending) onConfirm(new FormData(event.currentTarget));
  };

  return (
    <dialog
      ref={dialogRef}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        if (!pending) onClose();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-xl border border-border bg-surface p-0 text-foreground shadow-xl backdrop:bg-black/50"
    >
      {open ? (
        <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4 p-5 sm:p-6">
          <h2 id={titleId} className="text-base font-semibold tracking-tight">
            {title}
          </h2>
          {description ? (
            <div id={descriptionId} className="text-sm text-muted">
              {description}
            </div>
          ) : null}
          {children}
          <div role="alert" id={errorId} className="empty:hidden">
            {error ? (
              <p className="rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm font-medium text-danger">{error}</p>
            ) : null}
          </div>
          <div className="flex flex-col-reverse gap-2 pt-1 sm:flex-row sm:justify-end">
            <Button variant="secondary" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" variant={variant} disabled={pending} aria-busy={pending || undefined}>
              {pending ? (pendingLabel ?? `${confirmLabel}…`) : confirmLabel}
            </Button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
