"use client";

import { useId, useLayoutEffect, useRef, type ReactNode } from "react";
import { cx } from "@/components/ui/class-names";

export type ModalProps = {
  open: boolean;
  /** Called however the dialog closes: Escape, a cancel button, or the parent closing it. */
  onClose: () => void;
  title: string;
  description?: ReactNode;
  /** While a request runs, Escape does not close the dialog (its answer may hold a token). */
  busy?: boolean;
  children: ReactNode;
  testId?: string;
};

/**
 * A native modal `<dialog>`: the browser traps focus, closes on Escape and returns focus to the
 * button that opened it. Content mounts only while open, so every opening starts clean.
 */
export function Modal({ open, onClose, title, description, busy = false, children, testId }: ModalProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  // Before paint, so a closing dialog never shows one frame of empty content.
  useLayoutEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={dialogRef}
      onClose={onClose}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      data-testid={testId}
      className={cx(
        "m-auto w-[calc(100%-2rem)] max-w-md rounded-xl border border-border bg-surface p-0 text-foreground shadow-xl",
        "backdrop:bg-black/50",
      )}
    >
      {open ? (
        <div className="flex flex-col gap-4 p-5 sm:p-6">
          <div className="flex flex-col gap-1">
            <h2 id={titleId} className="text-base font-semibold tracking-tight">
              {title}
            </h2>
            {description ? (
              <div id={descriptionId} className="text-sm text-muted">
                {description}
              </div>
            ) : null}
          </div>
          {children}
        </div>
      ) : null}
    </dialog>
  );
}

/** Cancel first in the DOM (it takes the initial focus), the confirming action last. */
export function ModalActions({ children }: { children: ReactNode }) {
  return <div className="flex flex-col-reverse gap-2 pt-1 sm:flex-row sm:justify-end">{children}</div>;
}
