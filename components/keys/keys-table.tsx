"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { Meter, type MeterVariant } from "@/components/ui/meter";
import type { ApiKeyView } from "@/lib/query/keys";
import { formatCount, formatDateTime } from "./format";
import { describeRefill, describeRefillStop } from "./key-policy-fields";
import { KeyStatusBadge } from "./key-status-badge";

export type KeyAction = "revoke" | "roll" | "console" | "topup" | "limits";

export type KeysTableProps = {
  keys: ApiKeyView[];
  viewerId: string;
  isAdmin: boolean;
  /** Shows whose key it is (admin "All keys"). */
  showOwner: boolean;
  /** Owner id → email, when known (admins); ids are shown otherwise. */
  ownerEmails?: ReadonlyMap<string, string>;
  /** A team workspace's keys: who made each, its cap, and the pool it draws from. */
  team?: boolean;
  onAction: (action: KeyAction, key: ApiKeyView) => void;
};

const meterVariant = (key: ApiKeyView): MeterVariant => {
  if (key.creditsRemaining <= 0) return "red";
  return key.creditsGranted > 0 && key.creditsRemaining / key.creditsGranted < 0.2 ? "amber" : "normal";
};

const ownerLabel = (ownerId: string | null, viewerId: string, emails: ReadonlyMap<string, string> | undefined): string => {
  if (ownerId === null) return "Issued by the CLI";
  if (ownerId === viewerId) return "You";
  return emails?.get(ownerId) ?? ownerId;
};

const makerLabel = (key: ApiKeyView, viewerId: string): string => {
  if (key.maker === null) return "No one (operator or a removed member's batches)";
  if (key.maker.id === viewerId) return "You";
  return key.maker.name.trim() === "" ? key.maker.email : `${key.maker.name} <${key.maker.email}>`;
};

const capLabel = (key: ApiKeyView): string => {
  if (key.spendCap === null) return "no monthly or total cap";
  return `${formatCount(key.spendCap.credits)} ${key.spendCap.period === "month" ? "a month" : "in all"}`;
};

/** The buttons of an active key, in order: what the viewer may do with it. */
const keyActions = ({ key, own, isAdmin }: { key: ApiKeyView; own: boolean; isAdmin: boolean }) => {
  // The visible word, then the key's name for screen readers (several rows have the same buttons).
  const named = (text: string, name: string) => (
    <>
      {text}
      <span className="sr-only"> {name}</span>
    </>
  );
  const actions: Array<{ action: KeyAction; label: ReactNode; testId: string; allowed: boolean; danger?: boolean }> = [
    { action: "roll", label: named("Roll", key.name), testId: `roll-${key.id}`, allowed: own || key.ownerId === null },
    { action: "console", label: named("Use for console", `(${key.name})`), testId: `use-console-${key.id}`, allowed: own && !key.isConsoleKey },
    // A pooled key has no balance of its own to top up: the pool is funded instead.
    { action: "topup", label: named("Top up", key.name), testId: `topup-${key.id}`, allowed: isAdmin && key.poolId === null },
    { action: "limits", label: named("Limits", key.name), testId: `limits-${key.id}`, allowed: true },
    { action: "revoke", label: named("Revoke", key.name), testId: `revoke-${key.id}`, allowed: true, danger: true },
  ];
  // A suspended key spends nothing until its maker is promoted again: revoking it is all there is to do.
  return actions.filter((action) => action.allowed && (key.suspended === null || action.action === "revoke"));
};

/*
 * One markup for every width, so every data-testid exists once: a five-column table from xl up
 * (the console's content column is then wide enough); below that each row is a card. The header
 * row is then only for screen readers, and the few cells that need it show their own label.
 */
const rowClass = "grid gap-x-6 gap-y-4 p-4 sm:grid-cols-2 xl:table-row xl:p-0";
const cellClass = "block min-w-0 p-0 xl:table-cell xl:px-4 xl:py-3 xl:align-top";
const headerClass =
  "border-b border-border px-4 py-2.5 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-muted uppercase";

function MobileLabel({ children }: { children: ReactNode }) {
  return (
    <span className="mb-1 block text-xs font-medium text-muted xl:hidden" aria-hidden="true">
      {children}
    </span>
  );
}

function Facts({ items }: { items: Array<[label: string, value: string]> }) {
  return (
    <dl
      className={cx(
        "grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-xs",
        "sm:grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)] xl:grid-cols-[auto_auto]",
      )}
    >
      {items.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="whitespace-nowrap text-muted">{label}</dt>
          <dd className="whitespace-nowrap tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function KeysTable({ keys, viewerId, isAdmin, showOwner, ownerEmails, team = false, onAction }: KeysTableProps) {
  return (
    <div className="w-full overflow-x-auto rounded-xl border border-border bg-surface">
      <table className="block w-full border-collapse text-left text-sm xl:table" data-testid="keys-table">
        <caption className="sr-only">API keys</caption>
        <thead className="sr-only bg-surface-muted xl:not-sr-only xl:table-header-group">
          <tr>
            <th scope="col" className={headerClass}>
              Key
            </th>
            <th scope="col" className={headerClass}>
              Status
            </th>
            <th scope="col" className={headerClass}>
              Credits
            </th>
            <th scope="col" className={headerClass}>
              Limit and dates
            </th>
            <th scope="col" className={headerClass}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="block divide-y divide-border xl:table-row-group">
          {keys.map((key) => {
            const active = key.status === "active";
            const own = key.ownerId === viewerId;
            const refillStop = describeRefillStop(key, viewerId);
            return (
              <tr key={key.id} className={rowClass} data-testid={`key-row-${key.id}`}>
                <td className={cx(cellClass, "sm:col-span-2")}>
                  <div className="flex flex-wrap items-center gap-2">
                    <span className="font-medium break-words">{key.name}</span>
                    <Link
                      href={`/usage/keys/${key.id}`}
                      className="text-xs text-muted underline-offset-2 hover:text-foreground hover:underline"
                      data-testid={`key-alerts-${key.id}`}
                    >
                      Usage, alerts &amp; budget<span className="sr-only"> of {key.name}</span>
                    </Link>
                    {key.isConsoleKey ? (
                      <Badge variant="accent" data-testid={`console-key-${key.id}`}>
                        Console key
                      </Badge>
                    ) : null}
                  </div>
                  <p className="mt-0.5 flex flex-wrap gap-x-2 font-mono text-xs text-muted">
                    <span data-testid={`key-hint-${key.id}`} title="End of the current token">
                      {key.tokenHint}
                    </span>
                    <span className="break-all">{key.id}</span>
                  </p>
                  {team ? (
                    <p className="mt-0.5 text-xs break-all text-muted" data-testid={`key-maker-${key.id}`}>
                      Made by: {makerLabel(key, viewerId)}
                    </p>
                  ) : showOwner ? (
                    <p className="mt-0.5 text-xs break-all text-muted" data-testid={`key-owner-${key.id}`}>
                      Owner: {ownerLabel(key.ownerId, viewerId, ownerEmails)}
                    </p>
                  ) : null}
                </td>
                <td className={cellClass}>
                  <MobileLabel>Status</MobileLabel>
                  <KeyStatusBadge apiKey={key} />
                  {active && key.suspended ? (
                    <p className="mt-1 max-w-60 text-xs text-muted" data-testid={`key-suspended-${key.id}`}>
                      {own ? "Your" : "Its maker's"} role here is {key.suspended.role}, which runs no lookups: the key answers as revoked until
                      an owner or admin makes {own ? "you" : "them"} an analyst or above again.
                    </p>
                  ) : null}
                </td>
                <td className={cx(cellClass, "xl:min-w-44")}>
                  {key.poolId !== null ? (
                    <div className="flex flex-col gap-0.5 text-xs" data-testid={`key-credits-${key.id}`} data-pool-credits={key.creditsRemaining}>
                      <span className="font-medium">Pool: {formatCount(key.creditsRemaining)} left</span>
                      <span className="text-muted" data-testid={`key-cap-${key.id}`}>
                        Cap: {capLabel(key)}
                      </span>
                    </div>
                  ) : (
                    <div data-testid={`key-credits-${key.id}`}>
                      <Meter
                        label="Credits left"
                        value={key.creditsRemaining}
                        max={key.creditsGranted}
                        variant={meterVariant(key)}
                        className="text-xs [&_span]:text-xs"
                      />
                    </div>
                  )}
                </td>
                <td className={cx(cellClass, "sm:col-span-2 xl:col-span-1")}>
                  <Facts
                    items={[
                      ["Limit", `${formatCount(key.qpsLimit)} req/s`],
                      ["Created", formatDateTime(key.createdAt)],
                      ["Last used", formatDateTime(key.lastUsedAt, "Never")],
                      ["Operations", key.operations === null ? "All" : key.operations.join(", ")],
                      ["Addresses", key.allowedAddresses === null ? "Any" : key.allowedAddresses.join(", ")],
                      ["Refill", describeRefill(key)],
                      ["Alerts at", key.alertThresholds.length === 0 ? "—" : key.alertThresholds.map((threshold) => formatCount(threshold.thresholdCredits)).join(", ")],
                      active
                        ? ["Expires", formatDateTime(key.expiresAt, "Never")]
                        : ["Revoked", formatDateTime(key.revokedAt)],
                    ]}
                  />
                  {refillStop ? (
                    <p className="mt-1 max-w-prose text-xs text-danger" data-testid={`key-refill-stopped-${key.id}`}>
                      {refillStop}
                    </p>
                  ) : null}
                </td>
                <td className={cx(cellClass, "sm:col-span-2 xl:w-px")}>
                  {active ? (
                    <div className="flex flex-wrap gap-2 xl:flex-col xl:items-stretch">
                      {keyActions({ key, own, isAdmin }).map(({ action, label, testId, danger }) => (
                        <Button
                          key={action}
                          size="sm"
                          variant={danger ? "ghost" : "secondary"}
                          className={danger ? "text-danger hover:bg-danger-soft hover:text-danger" : undefined}
                          onClick={() => onAction(action, key)}
                          data-testid={testId}
                        >
                          {label}
                        </Button>
                      ))}
                    </div>
                  ) : (
                    <span className="sr-only">No actions for a revoked key</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
