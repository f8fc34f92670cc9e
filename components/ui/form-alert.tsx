/**
 * A form's outcome, in one look: the danger box for a failure, the success box for a done note.
 * FormError mounts its alert with the message (for errors that replace the form's content);
 * FormAlert keeps both live regions mounted, so a message that changes in place is read out.
 */
const tone = {
  danger: "rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm font-medium text-danger",
  success: "rounded-lg border border-success/30 bg-success-soft px-3 py-2 text-sm font-medium text-success",
} as const;

/** A failure, read out when it appears. Renders nothing without a message. */
export function FormError({ message, testId }: { message: string | null | undefined; testId?: string }) {
  if (!message) return null;
  return (
    <p role="alert" data-testid={testId} className={tone.danger}>
      {message}
    </p>
  );
}

/** The server's error message or a success note, announced. */
export function FormAlert({ error, success }: { error?: string; success?: string }) {
  return (
    <>
      <div role="alert" className="empty:hidden">
        {error ? <p className={tone.danger}>{error}</p> : null}
      </div>
      <div role="status" className="empty:hidden">
        {success && !error ? <p className={tone.success}>{success}</p> : null}
      </div>
    </>
  );
}
