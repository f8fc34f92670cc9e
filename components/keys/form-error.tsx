/** A failure, read out when it appears. Renders nothing without a message. */
export function FormError({ message, testId }: { message: string | null | undefined; testId?: string }) {
  if (!message) return null;
  return (
    <p
      role="alert"
      data-testid={testId}
      className="rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm font-medium text-danger"
    >
      {message}
    </p>
  );
}
