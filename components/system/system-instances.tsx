"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-alert";
import { LoadError } from "@/components/ui/load-error";
import { errorMessage } from "@/components/keys/format";
import { systemQuery, SYSTEM_REFRESH_MS } from "@/lib/query/system";
import type { InstanceView } from "@/lib/system/view";
import { InstanceCard } from "./instance-card";

const updatedAt = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** What a screen reader hears when it changes (not every refresh): how many are live and ready. */
const summaryOf = (instances: readonly InstanceView[]): string => {
  const live = instances.filter((instance) => !instance.stale);
  const notReady = live.filter((instance) => instance.snapshot?.readiness?.ready !== true);
  const gone = instances.length - live.length;
  const parts = [
    `${live.length} instance${live.length === 1 ? "" : "s"} live`,
    notReady.length === 0 ? (live.length > 0 ? "all ready" : null) : `${notReady.length} not ready: ${notReady.map((instance) => instance.name).join(", ")}`,
    gone > 0 ? `${gone} gone lately` : null,
  ];
  return parts.filter((part) => part !== null).join(", ");
};

/**
 * Every instance of the service as it last reported itself, read again every few seconds while
 * the tab is visible (TanStack Query pauses the interval in a hidden tab), with a way to pause.
 */
export function SystemInstances() {
  const [paused, setPaused] = useState(false);
  const system = useQuery({ ...systemQuery(), refetchInterval: paused ? false : SYSTEM_REFRESH_MS });

  if (system.isPending)
    return (
      <p role="status" className="text-sm text-muted">
        Loading the instances…
      </p>
    );
  if (system.isError && system.data === undefined)
    return (
      <LoadError message={`The instances could not be loaded: ${errorMessage(system.error)}`} testId="system-error" onRetry={() => void system.refetch()} />
    );

  const { instances, liveWithinS, snapshotEveryS, staleShownForS } = system.data;
  const refreshError = system.isError ? `Could not refresh: ${errorMessage(system.error)} The figures below are from the last answer.` : null;

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-muted">
          Each instance reports every {snapshotEveryS} s; one silent for {liveWithinS} s is shown as gone for {Math.round(staleShownForS / 60)} min.{" "}
          <span data-testid="system-updated">
            {paused ? "Paused" : "Live"}, updated {updatedAt.format(system.dataUpdatedAt)}.
          </span>
        </p>
        <Button variant="secondary" size="sm" aria-pressed={paused} onClick={() => setPaused(!paused)} data-testid="system-pause">
          Pause live updates
        </Button>
      </div>
      <p role="status" className="sr-only">
        {summaryOf(instances)}
      </p>
      <FormError message={refreshError} testId="system-refresh-error" />
      {instances.length === 0 ? (
        <p className="rounded-xl border border-dashed border-border-strong p-6 text-center text-sm text-muted" data-testid="system-empty">
          No instance has reported in the last {Math.round(staleShownForS / 60)} minutes. A running instance writes its first report within
          seconds of starting; if none appears, its background jobs did not start (see its log).
        </p>
      ) : (
        <ul className="flex flex-col gap-4" aria-label="Instances">
          {instances.map((instance) => (
            <li key={`${instance.name} ${instance.startId}`}>
              <InstanceCard instance={instance} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
