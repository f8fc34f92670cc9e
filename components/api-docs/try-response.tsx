import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { CodeBlock } from "@/components/ui/code-block";
import type { TryOutcome } from "./send-call";

/** What one try-it call answered: status, the headers that matter and the pretty-printed body. */
const statusText: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

const statusVariant = (status: number): BadgeVariant =>
  status >= 200 && status < 300 ? "success" : status >= 500 ? "danger" : "warning";

export const statusLine = (status: number): string => `${status} ${statusText[status] ?? ""}`.trim();

const viaLabel = { console: "with your console key", token: "with the pasted key" } as const;

const headerValue = (headers: [string, string][], name: string): string | undefined =>
  headers.find(([headerName]) => headerName === name)?.[1];

const creditsWord = (credits: number) => `${credits} ${credits === 1 ? "credit" : "credits"}`;

/** The console API's own refusals (signed out, no console key) carry `{error}` instead of the /v1 envelope. */
const consoleHint = (status: number): string | null =>
  status === 401
    ? "Your session has ended: sign in again to send with your console key."
    : status === 409
      ? "You have no console key yet: choose or create one on the Keys page."
      : null;

export function TryResponse({ outcome, operationName }: { outcome: TryOutcome; operationName: string }) {
  if (outcome.kind === "failure") {
    return (
      <p
        className="rounded-lg border border-danger/30 bg-danger-soft px-4 py-3 text-sm font-medium text-danger"
        data-testid={`try-${operationName}-status`}
      >
        {outcome.message}
      </p>
    );
  }

  const charged = headerValue(outcome.headers, "X-Credits-Charged");
  const remaining = headerValue(outcome.headers, "X-Credits-Remaining");
  const hint = outcome.via === "console" && !outcome.headers.length ? consoleHint(outcome.status) : null;

  return (
    <div className="flex min-w-0 flex-col gap-4">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        <Badge variant={statusVariant(outcome.status)} className="font-mono text-sm" data-testid={`try-${operationName}-status`}>
          {statusLine(outcome.status)}
        </Badge>
        <span className="text-muted">
          {viaLabel[outcome.via]} · {outcome.durationMs} ms
          {charged !== undefined ? ` · charged ${creditsWord(Number(charged))}` : ""}
          {remaining !== undefined ? ` · ${Number(remaining).toLocaleString("en-US")} left` : ""}
        </span>
      </div>
      {hint ? <p className="text-sm text-warning">{hint}</p> : null}

      <div className="flex flex-col gap-2">
        <h4 className="text-xs font-semibold tracking-wide text-muted uppercase">Response headers</h4>
        {outcome.headers.length > 0 ? (
          <dl
            className="grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-4 gap-y-1 rounded-lg border border-border bg-surface-muted px-4 py-3 font-mono text-[13px]"
            data-testid={`try-${operationName}-headers`}
          >
            {outcome.headers.map(([name, value]) => (
              <div key={name} className="contents">
                <dt className="text-muted">{name}</dt>
                <dd className="break-all text-foreground">{value}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p className="text-sm text-muted" data-testid={`try-${operationName}-headers`}>
            None of the API&apos;s headers came back.
          </p>
        )}
      </div>

      <div className="flex min-w-0 flex-col gap-2" data-testid={`try-${operationName}-body`}>
        <h4 className="text-xs font-semibold tracking-wide text-muted uppercase">Response body</h4>
        <CodeBlock title={`${outcome.status} response body`} code={outcome.body} className="[&_pre]:max-h-96 [&_pre]:overflow-y-auto" />
      </div>
    </div>
  );
}
