/** A form's outcome, announced: the server's error message or a success note. */
export function FormAlert({ error, success }: { error?: string; success?: string }) {
  return (
    <>
      <div role="alert" className="empty:hidden">
        {error ? (
          <p className="rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm font-medium text-danger">{error}</p>
        ) : null}
      </div>
      <div role="status" className="empty:hidden">
        {success && !error ? (
          <p className="rounded-lg border border-success/30 bg-success-soft px-3 py-2 text-sm font-medium text-success">{success}</p>
        ) : null}
      </div>
    </>
  );
}
