"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { errorMessage, formatCount } from "@/components/keys/format";
import { Badge } from "@/components/ui/badge";
import { bindValue } from "@/components/ui/bind-value";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { LoadError } from "@/components/ui/load-error";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { adminWorkspacesQuery, type AdminWorkspaceView } from "@/lib/query/workspace-admin";
import { WorkspaceDrawer } from "./workspace-drawer";
import { limitText, refillText } from "./workspace-text";

const matches = (workspace: AdminWorkspaceView, needle: string): boolean =>
  needle === "" || [workspace.name, workspace.id, ...workspace.ownerEmails].some((text) => text.toLowerCase().includes(needle));

const COLUMNS = [
  "Workspace",
  "Owners",
  { label: "Members", className: "text-right" },
  { label: "Pool credits", className: "text-right" },
  "Refill",
  "Shared limit",
  { label: "Actions", visuallyHidden: true },
] as const;

/**
 * Admin → Workspaces: every workspace with its pool, members, refill and shared limit; a row
 * opens the drawer that funds the pool and sets its refill and limit. Teams first; the personal
 * workspaces (one per user) only when asked for.
 */
export function WorkspacesAdmin() {
  const workspaces = useQuery(adminWorkspacesQuery());
  const [search, setSearch] = useState("");
  const [showPersonal, setShowPersonal] = useState(false);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const personalId = useId();

  if (workspaces.isPending) return <p role="status" className="text-sm text-muted">Loading workspaces…</p>;
  if (workspaces.isError)
    return <LoadError message={`The workspaces could not be loaded: ${errorMessage(workspaces.error)}`} testId="admin-workspaces-error" onRetry={() => void workspaces.refetch()} />;

  const needle = search.trim().toLowerCase();
  const shown = workspaces.data.filter((workspace) => (showPersonal || !workspace.personal) && matches(workspace, needle));
  const teams = workspaces.data.filter((workspace) => !workspace.personal);
  const empty = teams.filter((workspace) => workspace.poolCredits === 0).length;
  const selected = workspaces.data.find((workspace) => workspace.id === selectedId) ?? null;

  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted" data-testid="admin-workspaces-summary">
        {formatCount(teams.length)} {teams.length === 1 ? "team" : "teams"}
        {empty > 0 ? `, ${formatCount(empty)} with an empty pool (their keys answer 402 until funded)` : ""}.
      </p>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <Input
          label="Search"
          type="search"
          className="sm:max-w-sm sm:flex-1"
          {...bindValue(search, setSearch)}
          hint="Name, workspace id or owner email."
          autoComplete="off"
          data-testid="admin-workspaces-search"
        />
        <div className="flex items-center gap-2 pb-1 sm:pb-6">
          <input
            id={personalId}
            type="checkbox"
            className="size-4 shrink-0 accent-accent"
            checked={showPersonal}
            onChange={(event) => setShowPersonal(event.target.checked)}
            data-testid="admin-workspaces-personal"
          />
          <label htmlFor={personalId} className="text-sm">
            Show personal workspaces
          </label>
        </div>
      </div>
      {shown.length === 0 ? (
        <p className="text-sm text-muted" data-testid="admin-workspaces-none">
          {teams.length === 0 && !showPersonal ? "There are no team workspaces yet." : "No workspace matches that search."}
        </p>
      ) : (
        <Table caption="Every workspace" data-testid="admin-workspaces-table">
          <TableHeaderRow columns={COLUMNS} />
          <TableBody>
            {shown.map((workspace) => (
              <TableRow key={workspace.id} data-testid="admin-workspace-row" data-workspace-id={workspace.id}>
                <TableCell>
                  <span className="block font-medium break-words">{workspace.name}</span>
                  <span className="block font-mono text-xs break-all text-muted">{workspace.id}</span>
                  {workspace.personal ? <Badge className="mt-1">Personal</Badge> : null}
                </TableCell>
                <TableCell className="text-xs break-all">{workspace.ownerEmails.join(", ") || "—"}</TableCell>
                <TableCell className="text-right tabular-nums">{formatCount(workspace.memberCount)}</TableCell>
                <TableCell className="text-right whitespace-nowrap tabular-nums" data-testid="admin-workspace-pool" data-pool-credits={workspace.personal ? undefined : workspace.poolCredits}>
                  {workspace.personal ? (
                    <span className="text-muted">no pool</span>
                  ) : workspace.poolCredits === 0 ? (
                    <Badge variant="warning">Empty</Badge>
                  ) : (
                    <>
                      {formatCount(workspace.poolCredits)}
                      <span className="block text-xs text-muted">of {formatCount(workspace.poolGranted)} granted</span>
                    </>
                  )}
                </TableCell>
                <TableCell className="whitespace-nowrap" data-testid="admin-workspace-refill">
                  {workspace.personal ? "—" : refillText(workspace.refill)}
                </TableCell>
                <TableCell className="whitespace-nowrap tabular-nums" data-testid="admin-workspace-limit">
                  {limitText(workspace.qpsLimit)}
                </TableCell>
                <TableCell>
                  <div className="flex justify-end">
                    <Button variant="secondary" size="sm" aria-label={`Manage ${workspace.name}`} onClick={() => setSelectedId(workspace.id)}>
                      Manage
                    </Button>
                  </div>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <WorkspaceDrawer workspace={selected} onClose={() => setSelectedId(null)} />
    </div>
  );
}
