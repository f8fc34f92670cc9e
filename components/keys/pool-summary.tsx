"use client";

import { Meter } from "@/components/ui/meter";
import { viewerRoleLabel } from "@/components/workspaces/role-labels";
import type { WorkspaceSummary } from "@/lib/query/workspaces";
import { formatCount } from "./format";

/** A team workspace's pool on the Keys page: what its keys draw from, and the viewer's role. */
export function PoolSummary({ workspace }: { workspace: WorkspaceSummary }) {
  return (
    <section
      aria-labelledby="pool-heading"
      className="flex flex-col gap-3 rounded-xl border border-border bg-surface p-5 shadow-sm"
      data-testid="workspace-pool"
      data-pool-credits={workspace.poolCredits}
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="pool-heading" className="text-base font-semibold tracking-tight">
          Pool of {workspace.name}
        </h2>
        <span className="text-xs text-muted">Your role: {viewerRoleLabel(workspace.role)}</span>
      </div>
      <Meter label="Pool credits" value={workspace.poolCredits} max={Math.max(workspace.poolGranted, workspace.poolCredits)} />
      <p className="text-sm text-muted">
        Every key of this workspace draws from these {formatCount(workspace.poolCredits)} credits, within its own cap and its maker&apos;s monthly
        budget. The service administrator adds credits to the pool.
      </p>
    </section>
  );
}
