"use client";

import Link from "next/link";
import { QueryClientContext } from "@tanstack/react-query";
import { useContext, useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { bindValue } from "@/components/ui/bind-value";
import { Button } from "@/components/ui/button";
import { Input, verbatimText } from "@/components/ui/input";
import type { OperationDoc } from "@/lib/openapi/docs";
import { parseParamProblem } from "@/lib/query/lookup-error";
import { updateMeterCredits } from "@/lib/query/meter";
import type { ApiCall, QueryParam } from "@/lib/snippets/call";
import { noteConsoleCredits, noteConsoleRefusal, useConsoleAccess, type ConsoleAccess } from "./console-access";
import { nextFollowersPage, sendCall, type SendVia, type TryOutcome } from "./send-call";
import { SnippetTabs } from "./snippet-tabs";
import { TryResponse, statusLine } from "./try-response";

/**
 * One operation's try-it form on /api-docs: its parameters (prefilled with the examples), the
 * cost before sending, two ways to send — the signed-in user's console key (through the console
 * API, the token never reaches the browser) or a key pasted here (straight to /v1 with the
 * Authorization header; held in this component's state only) — the answer with its headers, and
 * snippets of exactly the call the form describes.
 */
export type TryItProps = {
  operation: OperationDoc;
  /** The origin clients reach this deployment at, for the snippets. */
  baseUrl: string;
};

const initialValues = (operation: OperationDoc): Record<string, string> =>
  Object.fromEntries(
    operation.parameters.map((parameter) => [
      parameter.name,
      // A parameter that selects another mode starts empty (with userid the API ignores node_id and cursor).
      parameter.alternative ? "" : parameter.example,
    ]),
  );

const creditsWord = (credits: number) => `${credits} ${credits === 1 ? "credit" : "credits"}`;

const accessText = (access: ConsoleAccess): string => {
  switch (access.status) {
    case "checking":
      return "Checking whether you are signed in…";
    case "signed-out":
      return "Sign in to send with your console key: the key stays on the server.";
    case "signed-in":
      return access.key
        ? `Console key “${access.key.name}” · ${access.key.creditsRemaining.toLocaleString("en-US")} credits left. The key stays on the server.`
        : "You have no console key yet: choose or create one on the Keys page.";
  }
};

export function TryIt({ operation, baseUrl }: TryItProps) {
  const op = operation.name;
  const formId = useId();
  const tokenInputId = `${formId}-token`;
  const access = useConsoleAccess();

  const [values, setValues] = useState<Record<string, string>>(() => initialValues(operation));
  const [token, setToken] = useState("");
  const [tokenError, setTokenError] = useState<string | null>(null);
  const [pending, setPending] = useState<SendVia | null>(null);
  // Signed in, the page sits in the console shell: its credit meter follows the console key's calls.
  const consoleQueries = useContext(QueryClientContext);
  const [outcome, setOutcome] = useState<TryOutcome | null>(null);
  const [fieldProblem, setFieldProblem] = useState<{ field: string; message: string } | null>(null);
  const controllerRef = useRef<AbortController | null>(null);

  useEffect(() => () => controllerRef.current?.abort(), []);

  const params: QueryParam[] = operation.parameters.map((parameter) => [parameter.name, values[parameter.name] ?? ""]);
  const call: ApiCall = { baseUrl, path: operation.path, params };
  const canUseConsole = access.status === "signed-in" && access.key !== null;

  const send = async (via: SendVia) => {
    const pastedKey = token.trim();
    if (via === "token" && pastedKey === "") {
      setTokenError("Paste an API key first.");
      document.getElementById(tokenInputId)?.focus();
      return;
    }
    setTokenError(null);
    controllerRef.current?.abort();
    const controller = new AbortController();
    controllerRef.current = controller;
    setPending(via);
    try {
      const result = await sendCall({
        operation: op,
        path: operation.path,
        params,
        via,
        token: via === "token" ? pastedKey : undefined,
        signal: controller.signal,
      });
      setOutcome(result);
      if (result.kind === "response") {
        const message =
          typeof result.json === "object" && result.json !== null && "message" in result.json && typeof result.json.message === "string"
            ? result.json.message
            : "";
        const problem = result.status === 400 ? parseParamProblem(message) : null;
        setFieldProblem(problem ? { field: problem.field, message } : null);
        if (via === "console") {
          const remaining = result.headers.find(([name]) => name === "X-Credits-Remaining")?.[1];
          if (remaining !== undefined) {
            noteConsoleCredits(Number(remaining));
            if (consoleQueries) updateMeterCredits(consoleQueries, Number(remaining));
          }
          if (result.headers.length === 0) noteConsoleRefusal(result.status);
        }
      }
    } catch {
      // Aborted: a newer send or leaving the page; nothing to show.
      return;
    } finally {
      if (controllerRef.current === controller) setPending(null);
    }
  };

  /**
   * Enter in a field sends: the key field with the pasted key; a parameter field with the console
   * key when signed in and nothing is pasted, else with the pasted key (which asks for one).
   */
  const onFieldEnter = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== "Enter" || event.nativeEvent.isComposing || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    if (pending !== null) return;
    void send(event.target.id === tokenInputId ? "token" : canUseConsole && token.trim() === "" ? "console" : "token");
  };

  const setValue = (name: string, value: string) => {
    setValues((current) => ({ ...current, [name]: value }));
    if (fieldProblem?.field === name) setFieldProblem(null);
  };

  const nextPage = op === "followers" && outcome?.kind === "response" && outcome.status === 200 ? nextFollowersPage(outcome.json) : null;
  const liveStatus =
    pending !== null
      ? "Sending…"
      : outcome?.kind === "response"
        ? `Answered ${statusLine(outcome.status)} in ${outcome.durationMs} ms.`
        : (outcome?.message ?? "");

  return (
    // A container: its columns follow its own width (the console's sidebar takes part of the window's).
    <div className="@container flex min-w-0 flex-col gap-6 rounded-xl border border-border bg-surface p-4 shadow-sm sm:p-6" data-testid={`try-${op}`}>
      {/* No submit buttons: each button says how it sends, and Enter is handled per field. */}
      <form id={formId} onSubmit={(event) => event.preventDefault()} onKeyDown={onFieldEnter} noValidate aria-label={`Try ${operation.summary}`} className="flex flex-col gap-5">
        <p className="flex flex-wrap items-center gap-2 text-sm" data-testid={`try-${op}-cost`}>
          <Badge variant={operation.costCredits >= 4 ? "warning" : "success"}>{creditsWord(operation.costCredits)}</Badge>
          <span className="text-muted">
            This call costs {creditsWord(operation.costCredits)} — charged only on a 200
          </span>
        </p>

        <fieldset className="grid grid-cols-1 gap-4 @lg:grid-cols-2">
          <legend className="sr-only">Query parameters</legend>
          {operation.parameters.map((parameter) => (
            <Input
              key={parameter.name}
              label={parameter.name}
              name={parameter.name}
              required={parameter.required}
              value={values[parameter.name] ?? ""}
              onChange={(change) => setValue(parameter.name, change.target.value)}
              placeholder={parameter.example}
              hint={parameter.description}
              error={fieldProblem?.field === parameter.name ? fieldProblem.message : undefined}
              {...verbatimText}
              className="min-w-0 [&_input]:font-mono"
              data-testid={`try-${op}-param-${parameter.name}`}
            />
          ))}
        </fieldset>

        <div className="grid grid-cols-1 gap-4 @2xl:grid-cols-2">
          <div className="flex flex-col justify-between gap-3 rounded-lg border border-border bg-surface-muted p-4">
            <div className="flex flex-col gap-1">
              <p className="text-sm font-medium">Your console key</p>
              <p className="text-xs text-muted" aria-live="polite">
                {accessText(access)}
              </p>
            </div>
            <div className="flex flex-wrap items-center gap-3">
              <Button
                onClick={() => void send("console")}
                disabled={!canUseConsole || pending !== null}
                data-testid={`try-${op}-send-console`}
              >
                {pending === "console" ? "Sending…" : "Send with my console key"}
              </Button>
              {access.status === "signed-out" ? (
                <Link
                  href={`/signin?callbackUrl=${encodeURIComponent(`/api-docs#${op}`)}`}
                  prefetch={false}
                  className="text-sm font-medium text-accent underline-offset-4 hover:underline"
                >
                  Sign in
                </Link>
              ) : access.status === "signed-in" && !access.key ? (
                <Link href="/keys" className="text-sm font-medium text-accent underline-offset-4 hover:underline">
                  Go to Keys
                </Link>
              ) : null}
            </div>
          </div>

          <div className="flex flex-col gap-3 rounded-lg border border-border bg-surface-muted p-4">
            <Input
              id={tokenInputId}
              label="A key you paste"
              type="password"
              name="api-key"
              {...bindValue(token, setToken, () => setTokenError(null))}
              placeholder="Paste an API key"
              hint={`Sent from your browser straight to ${operation.path}; kept on this page only, never stored.`}
              error={tokenError ?? undefined}
              {...verbatimText}
              data-1p-ignore=""
              data-lpignore="true"
              data-testid={`try-${op}-token`}
            />
            <div>
              <Button
                onClick={() => void send("token")}
                variant="secondary"
                disabled={pending !== null}
                data-testid={`try-${op}-send-token`}
              >
                {pending === "token" ? "Sending…" : "Send with a key I paste"}
              </Button>
            </div>
          </div>
        </div>
      </form>

      <p className="sr-only" role="status">
        {liveStatus}
      </p>

      {outcome ? (
        <section aria-label="Response" className="flex min-w-0 flex-col gap-3 border-t border-border pt-5" aria-busy={pending !== null}>
          <TryResponse outcome={outcome} operationName={op} />
          {nextPage ? (
            <div>
              <Button variant="secondary" size="sm" onClick={() => setValues((current) => ({ ...current, ...nextPage }))}>
                Fill in node_id and cursor for the next page
              </Button>
            </div>
          ) : null}
        </section>
      ) : null}

      {/* Named per operation: the page holds one such region per operation, and landmarks must differ. */}
      <section aria-label={`Code for ${op}`} className="flex min-w-0 flex-col gap-2 border-t border-border pt-5">
        <p className="text-sm text-muted">
          The same call as code. It reads your key from the <code className="font-mono text-foreground">SOCIAL_LOOKUP_API_KEY</code>{" "}
          environment variable and follows the form as you type.
        </p>
        <SnippetTabs call={call} operationName={op} client={operation.client} />
      </section>
    </div>
  );
}
