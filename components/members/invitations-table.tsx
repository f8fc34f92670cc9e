"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "@/components/console/confirm-dialog";
import { errorMessage, formatDateTime } from "@/components/keys/format";
import { roleLabels } from "@/components/workspaces/role-labels";
import { Button } from "@/components/ui/button";
import { LoadError } from "@/components/ui/load-error";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { invitationsQuery, refreshWorkspace, revokeInvitation, type PendingInvitation } from "@/lib/query/workspaces";

/** Invitations not yet accepted, revoked or expired; revoking one makes its link useless. */
export function InvitationsTable({ workspaceId }: { workspaceId: string }) {
  const queryClient = useQueryClient();
  const invitations = useQuery(invitationsQuery(workspaceId));
  const [revoking, setRevoking] = useState<PendingInvitation | null>(null);
  const mutation = useMutation({
    mutationFn: (invitation: PendingInvitation) => revokeInvitation(workspaceId, invitation.id),
    onSuccess: () => setRevoking(null),
    onSettled: () => refreshWorkspace(queryClient),
  });

  if (invitations.isPending) return <p role="status" className="text-sm text-muted">Loading invitations…</p>;
  if (invitations.isError)
    return (
      <LoadError
        message={`The invitations could not be loaded: ${errorMessage(invitations.error)}`}
        testId="invitations-error"
        onRetry={() => void invitations.refetch()}
      />
    );
  if (invitations.data.length === 0)
    return (
      <p className="text-sm text-muted" data-testid="invitations-empty">
        No pending invitations.
      </p>
    );

  return (
    <>
      <Table caption="Pending invitations" data-testid="invitations-table">
        <TableHeaderRow columns={["E-mail", "Role", "Expires", { label: "Actions", visuallyHidden: true }]} />
        <TableBody>
          {invitations.data.map((invitation) => (
            <TableRow key={invitation.id} data-testid="invitation-row">
              <TableCell className="break-all">{invitation.email}</TableCell>
              <TableCell>{roleLabels[invitation.role]}</TableCell>
              <TableCell className="whitespace-nowrap">
                <time dateTime={invitation.expiresAt}>{formatDateTime(invitation.expiresAt)}</time>
              </TableCell>
              <TableCell className="text-right">
                <Button variant="secondary" size="sm" onClick={() => setRevoking(invitation)} aria-label={`Revoke the invitation of ${invitation.email}`}>
                  Revoke
                </Button>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the invitation of ${revoking?.email ?? ""}?`}
        description="Its link stops working at once. You can invite them again later."
        confirmLabel="Revoke invitation"
        pendingLabel="Revoking…"
        variant="danger"
        pending={mutation.isPending}
        error={mutation.isError ? errorMessage(mutation.error) : undefined}
        onConfirm={() => revoking && mutation.mutate(revoking)}
        onClose={() => {
          setRevoking(null);
          mutation.reset();
        }}
      />
    </>
  );
}
