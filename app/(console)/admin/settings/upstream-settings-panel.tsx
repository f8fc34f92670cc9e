"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { FormAlert } from "@/components/ui/form-alert";
import { formatDateTime } from "@/components/ui/date-time";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import type { UpstreamAdminView } from "@/lib/connectors/upstream-admin";
import type { ConfigSource } from "@/lib/connectors/upstream-config";
import { fetchJson, jsonRequest } from "@/lib/query/fetch-json";

const UPSTREAM_URL = "/api/admin/upstream";
const queryKey = ["admin-upstream"] as const;

type SettingsChange = { baseUrl?: string | null; apiKey?: string | null; check?: boolean };

const sourceLabel = (source: ConfigSource) =>
  source === "environment" ? "set by environment" : source === "settings" ? "set here" : "not set";

const statusBadge = (view: UpstreamAdminView): { label: string; variant: BadgeVariant } => {
  if (view.status === "absent") return { label: "Not in use", variant: "neutral" };
  if (view.breaker?.state === "open") return { label: "Failing (circuit open)", variant: "danger" };
  switch (view.status) {
    case "ok":
      return { label: "Healthy", variant: "success" };
    case "idle":
      return { label: "No calls yet", variant: "neutral" };
    case "key_rejected":
      return { label: "Key refused", variant: "danger" };
    case "rate_limited":
      return { label: "Rate-limited", variant: "warning" };
    default:
      return { label: "Failing", variant: "danger" };
  }
};

const dataSourceText: Record<UpstreamAdminView["dataSource"], string> = {
  store: "Our record store only (DATA_SOURCE=store): the provider is not called.",
  upstream: "The provider, through the cache (DATA_SOURCE=upstream).",
  "store-then-upstream": "Our record store first, the provider for the rest (DATA_SOURCE=store-then-upstream).",
};

const hours = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`);

/** The admin's view of the upstream connection: a banner when it needs attention, status, and the settings form. */
export function UpstreamSettingsPanel() {
  const queryClient = useQueryClient();
  const view = useQuery({ queryKey, queryFn: () => fetchJson<UpstreamAdminView>(UPSTREAM_URL), refetchInterval: 15_000 });
  const [success, setSuccess] = useState<string>();
  const save = useMutation({
    mutationFn: (change: SettingsChange) => fetchJson<UpstreamAdminView>(UPSTREAM_URL, jsonRequest("PUT", change)),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKey, next);
      setSuccess("Saved.");
    },
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const baseUrl = String(values.get("baseUrl") ?? "").trim();
    const apiKey = String(values.get("apiKey") ?? "").trim();
    const change: SettingsChange = { check: values.get("check") === "on" };
    if (baseUrl !== "") change.baseUrl = baseUrl;
    if (apiKey !== "") change.apiKey = apiKey;
    setSuccess(undefined);
    if (change.baseUrl === undefined && change.apiKey === undefined) return;
    save.mutate(change, { onSuccess: () => form.reset() });
  };

  if (view.isPending) return <p className="text-sm text-muted">Loading…</p>;
  if (view.isError) return <FormAlert error={view.error.message} />;
  const current = view.data;
  const badge = statusBadge(current);
  const editableUrl = current.baseUrl.source !== "environment";
  const editableKey = current.sharedKey.source !== "environment";

  return (
    <>
      {current.banner ? (
        <p role="alert" className="rounded-lg border border-danger/30 bg-danger-soft px-4 py-3 text-sm font-medium text-danger">
          {current.banner}
        </p>
      ) : null}

      <Card>
        <CardHeader>
          <CardTitle as="h2">Status</CardTitle>
          <CardDescription>{dataSourceText[current.dataSource]}</CardDescription>
        </CardHeader>
        <CardContent>
          <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
            <dt className="text-muted">Provider</dt>
            <dd>
              <Badge variant={badge.variant}>{badge.label}</Badge>
            </dd>
            {current.breaker ? (
              <>
                <dt className="text-muted">Circuit breaker</dt>
                <dd>
                  {current.breaker.state}
                  {current.breaker.openUntil ? ` until ${new Date(current.breaker.openUntil).toLocaleTimeString()}` : ""}
                  {current.breaker.consecutiveFailures > 0 ? ` · ${current.breaker.consecutiveFailures} failures in a row` : ""}
                </dd>
              </>
            ) : null}
            {current.concurrency ? (
              <>
                <dt className="text-muted">Calls in flight</dt>
                <dd>
                  {current.concurrency.inUse} of {current.concurrency.max}
                  {current.concurrency.waiting > 0 ? `, ${current.concurrency.waiting} waiting` : ""}
                </dd>
              </>
            ) : null}
            {current.lastError ? (
              <>
                <dt className="text-muted">Last error</dt>
                <dd>
                  {formatDateTime(current.lastError.at)}: {current.lastError.message}
                </dd>
              </>
            ) : null}
            <dt className="text-muted">Last success</dt>
            <dd>{current.lastSuccessAt ? formatDateTime(current.lastSuccessAt) : "—"}</dd>
            <dt className="text-muted">Provider keys</dt>
            <dd>
              {current.keyMode === "shared"
                ? "one shared key (UPSTREAM_KEY_MODE=shared)"
                : `each user's own (UPSTREAM_KEY_MODE=per-user): ${current.usersWithProviderKeys} users have one`}
            </dd>
            <dt className="text-muted">Cache</dt>
            <dd>
              {Object.entries(current.cache.ttlS)
                .map(([kind, ttlS]) => `${kind} ${hours(ttlS)}`)
                .join(", ")}
              ; a hit costs {current.cache.hitCredits === "free" ? "nothing" : "the full price"}
            </dd>
          </dl>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle as="h2">Connection</CardTitle>
          <CardDescription>
            Base URL: <span className="font-mono">{current.baseUrl.value ?? "—"}</span> ({sourceLabel(current.baseUrl.source)}).
            Shared key: <span className="font-mono">{current.sharedKey.hint ?? "—"}</span> ({sourceLabel(current.sharedKey.source)}).
          </CardDescription>
          {current.baseUrlWarning ? (
            <p role="status" className="mt-2 text-sm font-medium text-warning" data-testid="base-url-warning">
              {current.baseUrlWarning}
            </p>
          ) : null}
        </CardHeader>
        <form noValidate onSubmit={onSubmit} aria-busy={save.isPending || undefined}>
          <CardContent className="flex max-w-lg flex-col gap-4">
            <Input
              label="Base URL"
              name="baseUrl"
              type="url"
              placeholder="https://provider.example/"
              disabled={!editableUrl}
              hint={editableUrl ? "Leave empty to keep the current one." : "Set by UPSTREAM_BASE_URL."}
            />
            <Input
              label="Shared provider key"
              name="apiKey"
              type="password"
              autoComplete="off"
              spellCheck={false}
              disabled={!editableKey}
              hint={
                editableKey
                  ? "Stored encrypted, shown masked. Leave empty to keep the current one."
                  : "Set by UPSTREAM_API_KEY."
              }
            />
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="check" defaultChecked className="size-4" />
              Check with the provider before saving (one call: a publication lookup of a profile that does not exist)
            </label>
            <FormAlert error={save.error?.message} success={success} />
          </CardContent>
          <CardFooter>
            <Button type="submit" disabled={save.isPending || (!editableUrl && !editableKey)}>
              {save.isPending ? "Saving…" : "Save"}
            </Button>
            {current.sharedKey.source === "settings" ? (
              <Button variant="ghost" disabled={save.isPending} onClick={() => save.mutate({ apiKey: null })}>
                Remove shared key
              </Button>
            ) : null}
          </CardFooter>
        </form>
      </Card>
    </>
  );
}
