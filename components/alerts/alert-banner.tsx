"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { acknowledgeAlert, openAlertsQuery, refreshAlerts, type KeyAlert } from "@/lib/query/usage";

const numbers = new Intl.NumberFormat(undefined);

const message = (alert: KeyAlert) =>
  alert.kind === "zero" ? (
    <>
      Key <strong className="font-semibold">“{alert.keyName}”</strong> has run out of credits: its lookups answer 402 until it is topped up.
    </>
  ) : (
    <>
      Key <strong className="font-semibold">“{alert.keyName}”</strong> is low on credits: {numbers.format(alert.currentCredits)} left
      {alert.thresholdCredits !== null ? ` (alert at ${numbers.format(alert.thresholdCredits)})` : ""}.
    </>
  );

/**
 * Low-credit alerts of the signed-in user's keys, across the console: one line per key, with a
 * way to its usage and settings, until dismissed. Renders nothing when all is well (or while the
 * first answer is on its way); refreshed every minute.
 */
export function AlertBanner() {
  const queryClient = useQueryClient();
  const alerts = useQuery(openAlertsQuery());
  const dismiss = useMutation({
    mutationFn: (alertId: string) => acknowledgeAlert(alertId),
    onSuccess: () => refreshAlerts(queryClient),
  });

  const open = alerts.data ?? [];
  if (open.length === 0) return null;
  return (
    <section
      aria-label="Credit alerts"
      data-testid="alert-banner"
      className="flex flex-col gap-2 rounded-xl border border-warning/40 bg-warning-soft px-4 py-3 text-sm text-foreground shadow-sm"
    >
      <ul className="flex flex-col gap-2">
        {open.map((alert) => (
          <li key={alert.id} data-testid={`alert-item-${alert.id}`} data-kind={alert.kind} className="flex flex-col gap-2 sm:flex-row sm:items-center sm:gap-3">
            <Icon name="warningTriangle" className="hidden size-5 shrink-0 text-warning sm:block" />
            <p className="min-w-0 flex-1">{message(alert)}</p>
            <div className="flex shrink-0 items-center gap-3">
              <Link
                href={`/usage?keyId=${encodeURIComponent(alert.keyId)}`}
                className="font-medium text-accent underline-offset-2 hover:underline"
              >
                Usage
              </Link>
              <Link
                href={`/usage/keys/${encodeURIComponent(alert.keyId)}`}
                className="font-medium text-accent underline-offset-2 hover:underline"
              >
                Alert settings
              </Link>
              <Button
                variant="ghost"
                size="sm"
                onClick={() => dismiss.mutate(alert.id)}
                disabled={dismiss.isPending && dismiss.variables === alert.id}
                aria-label={`Dismiss the alert for “${alert.keyName}”`}
                data-testid="alert-dismiss"
              >
                Dismiss
              </Button>
            </div>
          </li>
        ))}
      </ul>
      {dismiss.isError ? (
        <p role="alert" className="text-sm font-medium text-danger">
          The alert could not be dismissed. Try again.
        </p>
      ) : null}
    </section>
  );
}
