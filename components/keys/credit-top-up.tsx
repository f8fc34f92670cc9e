"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useMemo, useState } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import { Input } from "@/components/ui/input";
import { usersQuery } from "@/lib/query/account";
import { keysQuery, type ApiKeyView } from "@/lib/query/keys";
import { KeysNotLoaded } from "./keys-not-loaded";
import { formatCount, isExpired } from "./format";
import { TopUpForm } from "./top-up-form";
import { bindValue } from "@/components/ui/bind-value";

const MAX_RESULTS = 25;

type Result = { keyName: string; credits: number; creditsRemaining: number; creditsGranted: number };

const matches = (key: ApiKeyView, owner: string, search: string): boolean =>
  search === "" || [key.name, key.id, owner].some((text) => text.toLowerCase().includes(search));

/** Admin: find any active key by name, id or owner and add credits to it with a reason. */
export function CreditTopUp({ initialKeyId }: { initialKeyId: string | null }) {
  const keys = useQuery(keysQuery("all"));
  const users = useQuery(usersQuery());
  const [search, setSearch] = useState("");
  const [selectedId, setSelectedId] = useState<string | null>(initialKeyId);
  const [result, setResult] = useState<Result | null>(null);
  const groupId = useId();

  const ownerOf = useMemo(() => {
    const emails = new Map((users.data ?? []).map((user) => [user.id, user.email] as const));
    return (key: ApiKeyView): string => (key.ownerId === null ? "CLI" : (emails.get(key.ownerId) ?? key.ownerId));
  }, [users.data]);

  const activeKeys = (keys.data ?? []).filter((key) => key.status === "active");
  const needle = search.trim().toLowerCase();
  const found = activeKeys.filter((key) => matches(key, ownerOf(key), needle));
  const shown = found.slice(0, MAX_RESULTS);
  const selected = activeKeys.find((key) => key.id === selectedId) ?? null;

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card>
        <CardHeader>
          <CardTitle as="h2">1. Choose a key</CardTitle>
          <CardDescription>Active keys of every user. Revoked keys cannot be topped up.</CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-4">
          <Input
            label="Search"
            type="search"
            {...bindValue(search, setSearch)}
            hint="Name, key id or owner email."
            autoComplete="off"
            data-testid="credits-search"
          />
          {keys.data === undefined ? (
            <KeysNotLoaded keys={keys} />
          ) : shown.length === 0 ? (
            <p className="text-sm text-muted" data-testid="credits-no-match">
              {activeKeys.length === 0 ? "There are no active keys." : "No active key matches that search."}
            </p>
          ) : (
            <fieldset className="flex flex-col gap-2">
              <legend id={groupId} className="sr-only">
                Key to top up
              </legend>
              {shown.map((key) => (
                <label
                  key={key.id}
                  className={cx(
                    "flex cursor-pointer items-start gap-3 rounded-lg border p-3 transition-colors",
                    key.id === selectedId ? "border-accent bg-accent-soft" : "border-border-strong hover:bg-surface-muted",
                  )}
                >
                  <input
                    type="radio"
                    name="key"
                    value={key.id}
                    checked={key.id === selectedId}
                    onChange={() => {
                      setSelectedId(key.id);
                      setResult(null);
                    }}
                    data-testid={`pick-${key.id}`}
                    className="mt-1 size-4 shrink-0 accent-accent"
                  />
                  <span className="flex min-w-0 flex-col gap-0.5">
                    <span className="text-sm font-medium break-words">
                      {key.name}
                      {isExpired(key.expiresAt) ? <span className="ml-2 text-xs text-warning">(expired)</span> : null}
                    </span>
                    <span className="font-mono text-xs break-all text-muted">{key.id}</span>
                    <span className="text-xs text-muted">
                      {ownerOf(key)} · {formatCount(key.creditsRemaining)} of {formatCount(key.creditsGranted)} credits left
                    </span>
                  </span>
                </label>
              ))}
              {found.length > shown.length ? (
                <p className="text-xs text-muted">
                  Showing {shown.length} of {found.length} matching keys; narrow the search to see the rest.
                </p>
              ) : null}
            </fieldset>
          )}
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle as="h2">2. Add credits</CardTitle>
          <CardDescription>
            The reason is required and kept in the{" "}
            <Link href="/admin/audit" className="font-medium text-accent underline-offset-2 hover:underline">
              audit log
            </Link>
            .
          </CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-4">
          {result ? (
            <div
              role="status"
              data-testid="topup-result"
              className="flex flex-col gap-1 rounded-lg border border-success/30 bg-success-soft px-3 py-2 text-sm"
            >
              <p className="font-medium text-success">
                Added {formatCount(result.credits)} credits to “{result.keyName}”.
              </p>
              <p>
                It now has {formatCount(result.creditsRemaining)} of {formatCount(result.creditsGranted)} credits.{" "}
                <Link href="/admin/audit" className="font-medium text-accent underline-offset-2 hover:underline">
                  See the audit log
                </Link>
              </p>
            </div>
          ) : null}
          {selected ? (
            <>
              <p className="text-sm">
                Topping up <strong className="font-semibold">{selected.name}</strong>{" "}
                <span className="font-mono text-xs text-muted">{selected.id}</span>
              </p>
              <TopUpForm
                key={selected.id}
                apiKey={selected}
                onToppedUp={(key, credits) =>
                  setResult({
                    keyName: key.name,
                    credits,
                    creditsRemaining: key.creditsRemaining,
                    creditsGranted: key.creditsGranted,
                  })
                }
              />
            </>
          ) : (
            <p className="text-sm text-muted" data-testid="credits-pick-hint">
              Choose a key first.
            </p>
          )}
        </CardContent>
      </Card>
    </div>
  );
}
