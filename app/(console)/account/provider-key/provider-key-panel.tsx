"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { FormAlert } from "@/components/ui/form-alert";
import { ConfirmDialog } from "@/components/console/confirm-dialog";
import { formatDateTime } from "@/components/ui/date-time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import type { ProviderKeyState } from "@/lib/connectors/upstream-admin";
import { fetchJson, jsonRequest } from "@/lib/query/fetch-json";

const PROVIDER_KEY_URL = "/api/me/provider-key";
const queryKey = ["provider-key"] as const;

const dateTime = (iso: string | null) => (iso ? formatDateTime(iso) : "—");

/** State of the signed-in user's provider key, and the forms to add, replace or delete it. */
export function ProviderKeyPanel() {
  const queryClient = useQueryClient();
  const state = useQuery({ queryKey, queryFn: () => fetchJson<ProviderKeyState>(PROVIDER_KEY_URL) });
  const [success, setSuccess] = useState<string>();
  const [fieldError, setFieldError] = useState<string>();
  const [confirmDelete, setConfirmDelete] = useState(false);

  const save = useMutation({
    mutationFn: (key: string) => fetchJson<ProviderKeyState>(PROVIDER_KEY_URL, jsonRequest("PUT", { key })),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKey, next);
      setSuccess("Key saved. The provider accepted it.");
    },
  });
  const remove = useMutation({
    mutationFn: () => fetchJson<ProviderKeyState>(PROVIDER_KEY_URL, jsonRequest("DELETE")),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKey, next);
      setConfirmDelete(false);
      setSuccess("Key deleted.");
    },
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const key = String(new FormData(form).get("key") ?? "").trim();
    setSuccess(undefined);
    save.reset();
    if (key.length < 8 || /\s/.test(key)) {
      setFieldError("Paste the whole key: at least 8 characters, no spaces.");
      return;
    }
    setFieldError(undefined);
    save.mutate(key, { onSuccess: () => form.reset() });
  };

  if (state.isPending) return <p className="text-sm text-muted">Loading…</p>;
  if (state.isError) return <FormAlert error={state.error.message} />;
  const current = state.data;

  return (
    <>
      <Card>
        <CardHeader>
          <CardTitle as="h2">Your provider key</CardTitle>
          <CardDescription>
            {current.keyMode === "shared"
              ? "This deployment uses one shared provider key for everybody: you do not need your own."
              : current.required
                ? "This deployment sends each user's lookups to the provider with that user's own key."
                : "Lookups are answered from our own records at the moment; a key stored here is used when lookups go to the provider."}
          </CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-3">
          {current.configured ? (
            <dl className="grid max-w-md grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-muted">Key</dt>
              <dd className="font-mono">{current.hint}</dd>
              <dt className="text-muted">Checked</dt>
              <dd>{dateTime(current.validatedAt)}</dd>
            </dl>
          ) : (
            <p className="flex items-center gap-2 text-sm">
              <Badge variant={current.required ? "warning" : "neutral"}>Not set</Badge>
              {current.required ? "Add your provider key: lookups that miss our cache fail without it." : "No key stored."}
            </p>
          )}
          {current.lastError ? (
            <p role="alert" className="rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm text-danger">
              The provider refused this key on {dateTime(current.lastErrorAt)}: {current.lastError}. Replace it below.
            </p>
          ) : null}
        </CardContent>
      </Card>

      {current.keyMode === "per-user" ? (
        <Card>
          <CardHeader>
            <CardTitle as="h2">{current.configured ? "Replace the key" : "Add your provider key"}</CardTitle>
            <CardDescription>
              The key is checked with one call to the provider (a publication lookup of a profile that does not exist:
              free with a provider that charges only answers with data, at most 1 provider credit otherwise), then
              stored encrypted. It is never shown again; only its last characters are.
            </CardDescription>
          </CardHeader>
          <form noValidate onSubmit={onSubmit} aria-busy={save.isPending || undefined}>
            <CardContent className="flex max-w-md flex-col gap-4">
              <Input label="Provider key" name="key" type="password" autoComplete="off" spellCheck={false} required error={fieldError} />
              <FormAlert error={save.error?.message ?? remove.error?.message} success={success} />
            </CardContent>
            <CardFooter>
              <Button type="submit" disabled={save.isPending}>
                {save.isPending ? "Checking with the provider…" : current.configured ? "Replace key" : "Save key"}
              </Button>
              {current.configured ? (
                <Button variant="ghost" onClick={() => setConfirmDelete(true)} disabled={remove.isPending}>
                  Delete key
                </Button>
              ) : null}
            </CardFooter>
          </form>
        </Card>
      ) : null}

      <ConfirmDialog
        open={confirmDelete}
        title="Delete your provider key?"
        description="Lookups that miss our cache will fail until you add a key again."
        confirmLabel="Delete key"
        pendingLabel="Deleting…"
        variant="danger"
        pending={remove.isPending}
        error={remove.error?.message}
        onConfirm={() => remove.mutate()}
        onClose={() => setConfirmDelete(false)}
      />
    </>
  );
}
