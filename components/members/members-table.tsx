"use client";

import { errorMessage, formatCount, formatDateTime } from "@/components/keys/format";
import { roleLabels } from "@/components/workspaces/role-labels";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { LoadError } from "@/components/ui/load-error";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import type { Member, WorkspaceRole } from "@/lib/query/workspaces";
import type { MemberAction } from "./member-dialogs";

/** "spent 8 of 20 this month": the budget with what the member's keys spent of it (UTC month). */
const budgetText = (member: Member): string => {
  const spent = member.spentThisMonthCredits;
  if (member.monthlyBudgetCredits === null) return spent === undefined ? "No budget" : `No budget · spent ${formatCount(spent)} this month`;
  if (spent === undefined) return `${formatCount(member.monthlyBudgetCredits)} a month`;
  return `spent ${formatCount(spent)} of ${formatCount(member.monthlyBudgetCredits)} this month`;
};

// On a phone a row is a card: the member on top, role, budget and date in a line, the buttons under
// them, so nothing needs scrolling sideways. From `sm` up it is a table row again.
const phoneRow = "max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-3 max-sm:gap-y-2 max-sm:px-4 max-sm:py-3";
const phoneCell = "max-sm:block max-sm:p-0";

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
    <Table caption="Members of this workspace" data-testid="members-table" className="max-sm:block">
      <TableHeaderRow columns={columns} className="max-sm:sr-only" />
      <TableBody className="max-sm:block">
        {members.data.map((member) => {
          // An admin cannot change an owner: only roles they may grant can be changed.
          const mayChange = canManage && grantable.includes(member.role);
          return (
            <TableRow key={member.userId} data-testid="member-row" data-email={member.email} className={phoneRow}>
              <TableCell className={`${phoneCell} max-sm:basis-full`}>
                <span className="block font-medium">{member.name || member.email}</span>
                <span className="block text-xs break-all text-muted">{member.email}</span>
                {member.userId === currentUserId ? <Badge className="mt-1">You</Badge> : null}
              </TableCell>
              <TableCell className={phoneCell}>
                <Badge variant={member.role === "owner" ? "accent" : "neutral"} data-testid="member-role">
                  {roleLabels[member.role]}
                </Badge>
              </TableCell>
              <TableCell className={`${phoneCell} tabular-nums sm:whitespace-nowrap`} data-testid="member-budget">
                {budgetText(member)}
              </TableCell>
              <TableCell className={`${phoneCell} whitespace-nowrap max-sm:text-xs max-sm:text-muted`}>
                <span className="sm:hidden">Joined </span>
                <time dateTime={member.joinedAt}>{formatDateTime(member.joinedAt)}</time>
              </TableCell>
              {canManage ? (
                <TableCell className={`${phoneCell} max-sm:basis-full`}>
                  <div className="flex flex-wrap gap-2 sm:justify-end">
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
