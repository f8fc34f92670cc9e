"use client";

import { errorMessage, formatCount, formatDateTime } from "@/components/keys/format";
import { roleLabels } from "@/components/workspaces/role-labels";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { LoadError } from "@/components/ui/load-error";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import type { Member, WorkspaceRole } from "@/lib/query/workspaces";
import type { MemberAction } from "./member-dialogs";

const budgetText = (member: Member): string => {
  if (member.monthlyBudgetCredits === null) return "No budget";
  const spent = member.spentThisMonthCredits;
  if (spent === undefined) return `${formatCount(member.monthlyBudgetCredits)} a month`;
  const left = Math.max(0, member.monthlyBudgetCredits - spent);
  return `${formatCount(spent)} of ${formatCount(member.monthlyBudgetCredits)} spent · ${formatCount(left)} left`;
};

export type MembersTableProps = {
  members: { isPending: boolean; isError: boolean; error: unknown; data: Member[] | undefined; refetch: () => Promise<unknown> };
  /** The viewer may manage members (members.manage) and hand out these roles. */
  canManage: boolean;
  grantable: readonly WorkspaceRole[];
  currentUserId: string;
  onAction: (action: MemberAction) => void;
};

/** The workspace's members: who, role, monthly budget (spent and left this month), joined; row actions. */
export function MembersTable({ members, canManage, grantable, currentUserId, onAction }: MembersTableProps) {
  if (members.isPending) return <p role="status" className="text-sm text-muted">Loading members…</p>;
  if (members.isError || !members.data)
    return <LoadError message={`The members could not be loaded: ${errorMessage(members.error)}`} testId="members-error" onRetry={() => void members.refetch()} />;

  const columns = canManage ? ["Member", "Role", "Monthly budget", "Joined", { label: "Actions", visuallyHidden: true }] : ["Member", "Role", "Monthly budget", "Joined"];
  return (
    <Table caption="Members of this workspace" data-testid="members-table">
      <TableHeaderRow columns={columns} />
      <TableBody>
        {members.data.map((member) => {
          // An admin cannot change an owner: only roles they may grant can be changed.
          const mayChange = canManage && grantable.includes(member.role);
          return (
            <TableRow key={member.userId} data-testid="member-row" data-email={member.email}>
              <TableCell>
                <span className="block font-medium">{member.name || member.email}</span>
                <span className="block text-xs break-all text-muted">{member.email}</span>
                {member.userId === currentUserId ? <Badge className="mt-1">You</Badge> : null}
              </TableCell>
              <TableCell>
                <Badge variant={member.role === "owner" ? "accent" : "neutral"} data-testid="member-role">
                  {roleLabels[member.role]}
                </Badge>
              </TableCell>
              <TableCell className="whitespace-nowrap tabular-nums" data-testid="member-budget">
                {budgetText(member)}
              </TableCell>
              <TableCell className="whitespace-nowrap">
                <time dateTime={member.joinedAt}>{formatDateTime(member.joinedAt)}</time>
              </TableCell>
              {canManage ? (
                <TableCell>
                  <div className="flex flex-wrap justify-end gap-2">
                    {mayChange ? (
                      <>
                        <Button variant="secondary" size="sm" aria-label={`Change the role of ${member.email}`} onClick={() => onAction({ kind: "role", member })}>
                          Role
                        </Button>
                        <Button variant="secondary" size="sm" aria-label={`Set the monthly budget of ${member.email}`} onClick={() => onAction({ kind: "budget", member })}>
                          Budget
                        </Button>
                        <Button variant="danger" size="sm" aria-label={`Remove ${member.email}`} onClick={() => onAction({ kind: "remove", member })}>
                          Remove
                        </Button>
                      </>
                    ) : null}
                  </div>
                </TableCell>
              ) : null}
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
