"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { FormError } from "@/components/ui/form-alert";
import { LoadError } from "@/components/ui/load-error";
import { errorMessage, formatDateTime } from "@/components/keys/format";
import { auditQuery, type AuditEntryView } from "@/lib/query/keys";

const actionLabels: Record<string, { label: string; variant: BadgeVariant }> = {
  "key.create": { label: "Key created", variant: "success" },
  "key.revoke": { label: "Key revoked", variant: "danger" },
  "key.roll": { label: "Key rolled", variant: "warning" },
  "key.credits": { label: "Credits added", variant: "accent" },
  "key.console": { label: "Console key chosen", variant: "neutral" },
  "user.create": { label: "User created", variant: "success" },
  "user.reclaim": { label: "Invited account reclaimed", variant: "warning" },
  "user.disable": { label: "User disabled", variant: "danger" },
  "user.enable": { label: "User enabled", variant: "success" },
  "user.password": { label: "Password reset", variant: "warning" },
  "user.allowance": { label: "Allowance changed", variant: "accent" },
  "user.sessions": { label: "Sessions ended", variant: "neutral" },
  "subject.suppress": { label: "Subject suppressed", variant: "danger" },
  "subject.lift": { label: "Suppression lifted", variant: "warning" },
  "subject.access": { label: "Subject access", variant: "neutral" },
  "key.cap": { label: "Key cap changed", variant: "accent" },
  "workspace.create": { label: "Workspace created", variant: "success" },
  "workspace.settings": { label: "Workspace settings", variant: "neutral" },
  "workspace.delete": { label: "Workspace deleted", variant: "danger" },
  "workspace.transfer": { label: "Ownership transferred", variant: "accent" },
  "member.invite": { label: "Member invited", variant: "accent" },
  "member.join": { label: "Member joined", variant: "success" },
  "member.role": { label: "Role changed", variant: "warning" },
  "member.budget": { label: "Budget changed", variant: "accent" },
  "member.remove": { label: "Member removed", variant: "danger" },
  "invitation.revoke": { label: "Invitation revoked", variant: "warning" },
  "pool.credits": { label: "Pool credits added", variant: "accent" },
  "pool.refill": { label: "Pool refilled", variant: "accent" },
};

const detailValue = (value: unknown): string =>
  value === null || value === undefined ? "—" : typeof value === "object" ? JSON.stringify(value) : String(value);

function Details({ details }: { details: AuditEntryView["details"] }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <span className="text-muted">—</span>;
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-2 gap-y-0.5 text-xs">
      {entries.map(([name, value]) => (
        <div key={name} className="contents">
          <dt className="text-muted">{name}</dt>
          <dd className="break-words">{detailValue(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Every key, credit and user change, newest first, 50 at a time: the service's log, or one
 * workspace's when `workspaceId` is given.
 */
export function AuditLog({ workspaceId }: { workspaceId?: string } = {}) {
  const audit = useInfiniteQuery(auditQuery(workspaceId));

  if (audit.isPending)
    return (
      <p role="status" className="text-sm text-muted">
        Loading the audit log…
      </p>
    );
  // A failed "Load more" (or background refresh) keeps the entries already shown.
  if (audit.isError && audit.data === undefined)
    return (
      <LoadError
        message={`The audit log could not be loaded: ${errorMessage(audit.error)}`}
        testId="audit-error"
        onRetry={() => void audit.refetch()}
        error={audit.error}
      />
    );

  const entries = (audit.data?.pages ?? []).flatMap((page) => page.entries);
  const failed = audit.isFetchNextPageError ? "More entries" : "The latest entries";
  const laterError = audit.isError ? `${failed} could not be loaded: ${errorMessage(audit.error)}` : null;
  if (entries.length === 0)
    return (
      <p
        className="rounded-xl border border-dashed border-border-strong p-6 text-center text-sm text-muted"
        data-testid="audit-empty"
      >
        Nothing has been changed yet.
      </p>
    );

  return (
    <div className="flex flex-col gap-4">
      <Table caption="Audit log, newest first" scrollable data-testid="audit-table">
        <TableHeaderRow columns={["When", "Who, from which IP", "Action", "Target", "Details"]} />
        <TableBody>
          {entries.map((entry) => {
            const action = actionLabels[entry.action];
            return (
              <TableRow key={entry.id} data-testid={`audit-row-${entry.id}`}>
                <TableCell className="whitespace-nowrap">
                  <time dateTime={entry.createdAt}>{formatDateTime(entry.createdAt)}</time>
                </TableCell>
                <TableCell>
                  <span className="block whitespace-nowrap">{entry.actorEmail}</span>
                  <span className="block font-mono text-xs whitespace-nowrap text-muted" data-testid="audit-ip">
                    <span className="sr-only">IP address </span>
                    {entry.ip}
                  </span>
                </TableCell>
                <TableCell>
                  <Badge variant={action?.variant ?? "neutral"} title={entry.action} data-testid="audit-action">
                    {action?.label ?? entry.action}
                  </Badge>
                </TableCell>
                <TableCell>
                  <span className="sr-only">{entry.targetType} </span>
                  <span className="font-mono text-xs whitespace-nowrap">{entry.targetId}</span>
                </TableCell>
                <TableCell className="min-w-48">
                  <Details details={entry.details} />
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <div className="flex items-center gap-3">
        {audit.hasNextPage ? (
          <Button
            variant="secondary"
            onClick={() => void audit.fetchNextPage()}
            disabled={audit.isFetchingNextPage}
            data-testid="load-more"
          >
            {audit.isFetchingNextPage ? "Loading…" : "Load more"}
          </Button>
        ) : (
          <p className="text-sm text-muted">That is the whole log.</p>
        )}
        <FormError message={laterError} />
      </div>
    </div>
  );
}
