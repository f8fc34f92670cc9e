"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, formatCount } from "@/components/keys/format";
import { viewerRoleLabel } from "@/components/workspaces/role-labels";
import { FormAlert } from "@/components/ui/form-alert";
import { LoadError } from "@/components/ui/load-error";
import { activeWorkspace, membersQuery, workspacesQuery } from "@/lib/query/workspaces";
import { roleMay, rolesGrantableBy } from "@/lib/workspaces/roles";
import { CreateWorkspaceForm } from "./create-workspace-form";
import { InvitationsTable } from "./invitations-table";
import { InviteForm } from "./invite-form";
import { MemberDialogs, type MemberAction } from "./member-dialogs";
import { MembersTable } from "./members-table";

/**
 * The Members page of the active workspace: its members (role, budget) with the actions the
 * viewer's role allows, the invite form and pending invitations. A personal workspace has only
 * its owner: the page offers to create a team instead.
 */
export function MembersConsole({ currentUserId, isServiceAdmin }: { currentUserId: string; isServiceAdmin: boolean }) {
  const workspaces = useQuery(workspacesQuery());
  const active = activeWorkspace(workspaces.data);
  const members = useQuery({ ...membersQuery(active?.id ?? ""), enabled: active !== undefined && !active.personal });
  const [action, setAction] = useState<MemberAction | null>(null);
  const [note, setNote] = useState<string>();

  if (workspaces.isPending) return <p role="status" className="text-sm text-muted">Loading the workspace…</p>;
  if (workspaces.isError || !active)
    return <LoadError message={`The workspace could not be loaded: ${errorMessage(workspaces.error)}`} testId="workspace-error" onRetry={() => void workspaces.refetch()} />;

  if (active.personal)
    return (
      <div className="flex flex-col gap-4">
        <p className="text-sm text-muted" data-testid="members-personal">
          Your personal workspace has only you. A team workspace has members with roles and one credit pool; create one, or switch to one
          with the workspace switcher.
        </p>
        <CreateWorkspaceForm />
      </div>
    );

  const canManage = isServiceAdmin || (active.role !== null && roleMay(active.role, "members.manage"));
  const grantable = isServiceAdmin ? rolesGrantableBy("service_admin") : active.role === null ? [] : rolesGrantableBy(active.role);

  return (
    <div className="flex flex-col gap-6">
      <p className="text-sm text-muted" data-testid="members-workspace">
        <span className="font-medium text-foreground">{active.name}</span> · your role: {viewerRoleLabel(active.role)} · pool:{" "}
        <span className="tabular-nums">{formatCount(active.poolCredits)}</span> credits
      </p>
      <FormAlert success={note} />
      <MembersTable
        members={members}
        canManage={canManage}
        grantable={grantable}
        currentUserId={currentUserId}
        onAction={(next) => {
          setNote(undefined);
          setAction(next);
        }}
      />
      {canManage ? (
        <>
          <InviteForm workspaceId={active.id} grantable={grantable} />
          <section aria-labelledby="pending-invitations" className="flex flex-col gap-3">
            <h2 id="pending-invitations" className="text-base font-semibold tracking-tight">
              Pending invitations
            </h2>
            <InvitationsTable workspaceId={active.id} />
          </section>
        </>
      ) : null}
      <MemberDialogs
        workspaceId={active.id}
        action={action}
        grantable={grantable}
        onDone={(done) => {
          setAction(null);
          setNote(done);
        }}
        onClose={() => setAction(null)}
      />
    </div>
  );
}
