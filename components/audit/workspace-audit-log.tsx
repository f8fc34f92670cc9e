"use client";

import { useQuery } from "@tanstack/react-query";
import { errorMessage } from "@/components/keys/format";
import { LoadError, NotAllowed } from "@/components/ui/load-error";
import { activeWorkspace, workspacesQuery } from "@/lib/query/workspaces";
import { roleMay } from "@/lib/workspaces/roles";
import { AuditLog } from "./audit-log";

/**
 * The active workspace's audit log: membership, role, key, cap and pool changes, who and when. A
 * role that may not see it (lib/workspaces/roles.ts: audit.read) is told so, without asking the
 * server; the service administrator may see every workspace's.
 */
export function WorkspaceAuditLog({ isServiceAdmin }: { isServiceAdmin: boolean }) {
  const workspaces = useQuery(workspacesQuery());
  const active = activeWorkspace(workspaces.data);
  if (workspaces.isPending) return <p role="status" className="text-sm text-muted">Loading the workspace…</p>;
  if (workspaces.isError || !active)
    return <LoadError message={`The workspace could not be loaded: ${errorMessage(workspaces.error)}`} testId="workspace-error" onRetry={() => void workspaces.refetch()} />;
  if (!isServiceAdmin && active.role !== null && !roleMay(active.role, "audit.read"))
    return <NotAllowed message={`Your role (${active.role}) cannot see this workspace's audit log.`} testId="audit-error" />;
  return (
    <div className="flex flex-col gap-3" data-testid="workspace-audit" data-workspace-id={active.id}>
      <p className="text-sm text-muted">
        Workspace: <span className="font-medium text-foreground">{active.name}</span>
      </p>
      <AuditLog key={active.id} workspaceId={active.id} />
    </div>
  );
}
