"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState, type FormEvent } from "react";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { bindValue } from "@/components/ui/bind-value";
import { Input } from "@/components/ui/input";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { FormError } from "@/components/ui/form-alert";
import { TruncatedText } from "@/components/ui/truncated-text";
import { SubmitButton } from "@/components/ui/submit-button";
import { errorMessage, parseWholeNumber } from "@/components/keys/format";
import { ConsoleApiError } from "@/lib/query/fetch-json";
import {
  keyAlertsQuery,
  refreshAlerts,
  saveBudget,
  saveKeyAlerts,
  usageKeys,
  type KeyAlertsView,
} from "@/lib/query/usage";
import { EmptyState, Skeleton } from "@/components/usage/skeleton";
import { formatCount, formatTime } from "@/components/usage/format";

type ThresholdMode = "none" | "credits" | "percent";

const deliveryVariant: Record<string, BadgeVariant> = { delivered: "success", pending: "warning", failed: "danger" };

function Notice({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p role="status" className="rounded-lg border border-success/30 bg-success-soft px-3 py-2 text-sm font-medium text-success">
      {message}
    </p>
  );
}

function AlertSettingsForm({ view }: { view: KeyAlertsView }) {
  const queryClient = useQueryClient();
  const ids = useId();
  const { settings } = view;
  const [mode, setMode] = useState<ThresholdMode>(
    settings.thresholdCredits !== null ? "credits" : settings.thresholdPercent !== null ? "percent" : "none",
  );
  const [amount, setAmount] = useState(String(settings.thresholdCredits ?? settings.thresholdPercent ?? ""));
  const [webhookUrl, setWebhookUrl] = useState(settings.webhookUrl ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const save = useMutation({
    mutationKey: usageKeys.keyAlerts(view.key.id),
    mutationFn: (input: Parameters<typeof saveKeyAlerts>[1]) => saveKeyAlerts(view.key.id, input),
    onSuccess: async (next) => {
      queryClient.setQueryData(usageKeys.keyAlerts(view.key.id), next);
      setNotice("Alert settings saved.");
      await refreshAlerts(queryClient);
    },
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setNotice(null);
    const value = mode === "none" ? null : parseWholeNumber(amount);
    if (mode !== "none" && value === null) {
      setProblem(mode === "credits" ? "Enter the threshold as a whole number of credits." : "Enter the threshold as a whole percentage.");
      return;
    }
    if (mode === "percent" && value !== null && (value < 1 || value > 99)) {
      setProblem("A percentage threshold is between 1 and 99.");
      return;
    }
    setProblem(null);
    save.mutate({
      thresholdCredits: mode === "credits" ? value : null,
      thresholdPercent: mode === "percent" ? value : null,
      webhookUrl: webhookUrl.trim() === "" ? null : webhookUrl.trim(),
    });
  };

  return (
    <Card>
      <form noValidate onSubmit={onSubmit} data-testid="alert-settings-form">
        <CardHeader>
          <CardTitle as="h2">Low-credit alert</CardTitle>
          <CardDescription>
            When a charge takes the balance to or below the threshold, the console shows a banner and the webhook (if set) is called —
            once per crossing. Reaching 0 always alerts.
          </CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-4">
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 text-sm font-medium">Threshold</legend>
            <div className="flex flex-wrap gap-4 text-sm">
              {(["none", "credits", "percent"] as const).map((option) => (
                <label key={option} className="inline-flex items-center gap-2">
                  <input
                    type="radio"
                    name={`${ids}-mode`}
                    value={option}
                    checked={mode === option}
                    onChange={() => setMode(option)}
                    data-testid={`threshold-mode-${option}`}
                  />
                  {option === "none" ? "Only at zero" : option === "credits" ? "Credits left" : "% of granted credits"}
                </label>
              ))}
            </div>
          </fieldset>
          {mode !== "none" ? (
            <Input
              label={mode === "credits" ? "Alert at or below (credits)" : "Alert at or below (% of granted)"}
              inputMode="numeric"
              {...bindValue(amount, setAmount)}
              hint={
                settings.effectiveThresholdCredits !== null
                  ? `Now: alerts at ${formatCount(settings.effectiveThresholdCredits)} credits or fewer (${formatCount(settings.creditsRemaining)} left).`
                  : undefined
              }
              data-testid="threshold-amount"
              className="max-w-xs"
            />
          ) : null}
          <Input
            label="Webhook URL (optional)"
            type="url"
            placeholder="https://example.com/hooks/social-lookup"
            {...bindValue(webhookUrl, setWebhookUrl)}
            hint="https, or http://localhost / http://127.0.0.1 for a local receiver. Leave empty for the banner only."
            data-testid="webhook-url"
          />
          <FormError message={problem ?? (save.error ? errorMessage(save.error) : null)} testId="alert-settings-error" />
          <Notice message={notice} />
        </CardContent>
        <CardFooter>
          <SubmitButton pending={save.isPending} pendingLabel="Saving…" data-testid="alert-settings-save">
            Save alert settings
          </SubmitButton>
        </CardFooter>
      </form>
    </Card>
  );
}

function BudgetForm({ view }: { view: KeyAlertsView }) {
  const queryClient = useQueryClient();
  const [cap, setCap] = useState(view.settings.dailyCreditCap === null ? "" : String(view.settings.dailyCreditCap));
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (dailyCreditCap: number | null) => saveBudget(view.key.id, dailyCreditCap),
    onSuccess: async (budget) => {
      setNotice(budget.dailyCreditCap === null ? "The daily cap is removed." : `The daily cap is ${formatCount(budget.dailyCreditCap)} credits.`);
      await refreshAlerts(queryClient, view.key.id);
    },
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setNotice(null);
    const value = cap.trim() === "" ? null : parseWholeNumber(cap);
    if (cap.trim() !== "" && value === null) {
      setProblem("Enter the cap as a whole number of credits, or leave it empty for no cap.");
      return;
    }
    setProblem(null);
    save.mutate(value);
  };
  return (
    <Card>
      <form noValidate onSubmit={onSubmit} data-testid="budget-form">
        <CardHeader>
          <CardTitle as="h2">Daily budget</CardTitle>
          <CardDescription>
            The most this key may spend per UTC day. Over it, <code className="font-mono text-foreground">/v1</code> answers 402{" "}
            <code className="font-mono text-foreground">apiKey quota is not enough</code> and the request log says “daily cap reached”.
          </CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-4">
          <Input
            label="Daily credit cap"
            inputMode="numeric"
            placeholder="no cap"
            {...bindValue(cap, setCap)}
            hint={`Spent today: ${formatCount(view.settings.creditsSpentToday)} credits.`}
            data-testid="budget-cap"
            className="max-w-xs"
          />
          <FormError message={problem ?? (save.error ? errorMessage(save.error) : null)} testId="budget-error" />
          <Notice message={notice} />
        </CardContent>
        <CardFooter>
          <SubmitButton pending={save.isPending} pendingLabel="Saving…" data-testid="budget-save">
            Save budget
          </SubmitButton>
        </CardFooter>
      </form>
    </Card>
  );
}

const verifySnippet = (secret: string) => `// Node.js: verify a delivery before trusting it
import crypto from "node:crypto";

const secret = "${secret}";
// rawBody: the request body exactly as received (a string), before JSON.parse
const timestamp = request.headers["x-sociallookup-timestamp"] ?? "";
const deliveryId = request.headers["x-sociallookup-delivery"] ?? "";
const expected = "sha256=" + crypto.createHmac("sha256", secret).update(\`\${timestamp}.\${deliveryId}.\${rawBody}\`).digest("hex");
const given = request.headers["x-sociallookup-signature"] ?? "";
const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300; // 5 minutes either way
const valid = fresh && given.length === expected.length &&
  crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected));
// Then act on each deliveryId once: a retry, or a replay within the 5 minutes, repeats it.`;

function SigningSecret({ secret }: { secret: string }) {
  const [shown, setShown] = useState(false);
  return (
    <Card data-testid="signing-secret">
      <CardHeader>
        <CardTitle as="h2">Webhook signature</CardTitle>
        <CardDescription>
          Every delivery carries <code className="font-mono text-foreground">X-SocialLookup-Signature: sha256=&lt;hex&gt;</code>, the
          HMAC-SHA256 of <code className="font-mono text-foreground">timestamp.deliveryId.body</code> (the Timestamp and Delivery
          headers, then the raw body) keyed with this secret. Keep it private.
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        {shown ? (
          <CodeBlock title="Verify in your receiver" code={verifySnippet(secret)} />
        ) : (
          <Button variant="secondary" className="w-fit" onClick={() => setShown(true)} data-testid="show-secret">
            Show signing secret
          </Button>
        )}
      </CardContent>
    </Card>
  );
}

function AlertsAndDeliveries({ view }: { view: KeyAlertsView }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Alerts and deliveries</CardTitle>
        <CardDescription>The latest crossings and what became of their webhooks. Refreshed every 10 seconds.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-6">
        {view.alerts.length === 0 ? (
          <EmptyState testId="alerts-empty">No alerts yet: this key has not crossed its threshold.</EmptyState>
        ) : (
          <Table caption="Recent alerts" showCaption data-testid="key-alerts-table">
            <TableHeaderRow columns={["When", "Alert", { label: "Credits left", className: "text-right" }, "Seen"]} />
            <TableBody>
              {view.alerts.map((alert) => (
                <TableRow key={alert.id} data-testid="key-alert-row">
                  <TableCell className="whitespace-nowrap">{formatTime(alert.createdAt)}</TableCell>
                  <TableCell>
                    {alert.kind === "zero" ? (
                      <Badge variant="danger">Reached 0</Badge>
                    ) : (
                      <Badge variant="warning">At or below {formatCount(alert.thresholdCredits ?? 0)}</Badge>
                    )}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{formatCount(alert.creditsRemaining)}</TableCell>
                  <TableCell className="text-sm text-muted">{alert.acknowledgedAt ? "Dismissed" : "Open"}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
        {view.deliveries.length === 0 ? (
          <EmptyState testId="deliveries-empty">No webhook deliveries yet.</EmptyState>
        ) : (
          <Table caption="Webhook deliveries" showCaption data-testid="deliveries-table">
            <TableHeaderRow columns={["Created", "Status", { label: "Attempts", className: "text-right" }, "Last answer", "URL"]} />
            <TableBody>
              {view.deliveries.map((delivery) => (
                <TableRow key={delivery.id} data-testid="delivery-row" data-status={delivery.status}>
                  <TableCell className="whitespace-nowrap">{formatTime(delivery.createdAt)}</TableCell>
                  <TableCell>
                    <div className="flex flex-col items-start gap-0.5">
                      <Badge variant={deliveryVariant[delivery.status] ?? "neutral"}>{delivery.status}</Badge>
                      {delivery.status === "pending" && delivery.nextAttemptAt ? (
                        <span className="text-xs text-muted">next try {formatTime(delivery.nextAttemptAt)}</span>
                      ) : null}
                    </div>
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{delivery.attempts}</TableCell>
                  <TableCell className="text-sm">
                    {delivery.lastStatus !== null ? `HTTP ${delivery.lastStatus}` : (delivery.lastError ?? "—")}
                  </TableCell>
                  <TableCell className="max-w-64">
                    <TruncatedText text={delivery.url} className="font-mono text-xs" />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}

/** A key's alert threshold, webhook, signing secret, daily budget and delivery log. */
export function KeyAlertsPanel({ keyId }: { keyId: string }) {
  const view = useQuery(keyAlertsQuery(keyId));

  if (view.isPending)
    return (
      <div className="flex flex-col gap-4" role="status" aria-label="Loading the key's alerts">
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-64" />
        <Skeleton className="h-48" />
      </div>
    );
  if (view.isError) {
    const missing = view.error instanceof ConsoleApiError && view.error.status === 404;
    return (
      <div className="flex flex-col items-start gap-3">
        <FormError message={missing ? "No such key, or it is not yours." : `The key's alerts could not be loaded: ${errorMessage(view.error)}`} testId="key-alerts-error" />
        <Link href="/usage" className="text-sm font-medium text-accent underline-offset-2 hover:underline">
          Back to usage
        </Link>
      </div>
    );
  }

  const data = view.data;
  // Forms restart from the saved values whenever those change (not on every background refresh).
  const settingsVersion = JSON.stringify([data.settings.thresholdCredits, data.settings.thresholdPercent, data.settings.webhookUrl]);
  return (
    <div className="flex flex-col gap-6" data-testid="key-alerts-panel">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight break-all">{data.key.name}</h1>
        {data.key.status === "revoked" ? <Badge variant="danger">Revoked</Badge> : null}
        <Link
          href={`/usage?keyId=${encodeURIComponent(data.key.id)}`}
          className="ml-auto text-sm font-medium text-accent underline-offset-2 hover:underline"
        >
          Usage of this key
        </Link>
      </div>
      <p className="-mt-4 text-sm text-muted">
        {formatCount(data.settings.creditsRemaining)} of {formatCount(data.settings.creditsGranted)} credits left ·{" "}
        <code className="font-mono">{data.key.id}</code>
      </p>
      {data.key.status === "active" ? (
        <div className="grid gap-6 lg:grid-cols-2">
          <AlertSettingsForm key={settingsVersion} view={data} />
          <BudgetForm key={String(data.settings.dailyCreditCap)} view={data} />
        </div>
      ) : (
        <p className="text-sm text-muted">A revoked key spends nothing more: its alerts and budget are read-only.</p>
      )}
      {data.signingSecret ? <SigningSecret secret={data.signingSecret} /> : null}
      <AlertsAndDeliveries view={data} />
    </div>
  );
}
