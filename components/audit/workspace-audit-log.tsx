"use client";

import { useQuery } from "@tanstack/react-query";
import { errorMessage } from "@/components/keys/format";
import { LoadError } from "@/components/ui/load-error";
import { activeWorkspace, workspacesQuery } from "@/lib/query/workspaces";
import { AuditLog } from "./audit-log";

/** The active workspace's audit log: membership, role, key, cap and pool changes, who and when. */
export function WorkspaceAuditLog() {
  const workspaces = useQuery(workspacesQuery());
  const active = activeWorkspace(workspaces.data);
  if (workspaces.isPending) return <p role="status" className="text-sm text-muted">Loading the workspace…</p>;
  if (workspaces.isError || !active)
    return <LoadError message={`The workspace could not be loaded: ${errorMessage(workspaces.error)}`} testId="workspace-error" onRetry={() => void workspaces.refetch()} />;
  return (
    <div className="flex flex-col gap-3" data-testid="workspace-audit" data-workspace-id={active.id}>
      <p className="text-sm text-muted">
        Workspace: <span className="font-medium text-foreground">{active.name}</span>
      </p>
      <AuditLog key={active.id} workspaceId={active.id} />
    </div>
  );
}
