"use client";

import { formatCount } from "@/components/keys/format";
import { buttonStyles } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import type { UsageGroup } from "@/lib/query/usage";

const number = { className: "text-right" };

/**
 * A team workspace's usage by member (the user who made each key; a removed member's usage stays
 * theirs): requests, failures and credits, most credits first, with the same lines as CSV.
 */
export function UsageByMember({ members, exportUrl }: { members: UsageGroup[]; exportUrl: string }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">By member</CardTitle>
        <CardDescription>Who spent the pool in this period: the keys each member made, console lookups included.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        {members.length === 0 ? (
          <p className="text-sm text-muted" data-testid="usage-members-empty">
            No member made a request in this period.
          </p>
        ) : (
          <Table caption="Usage by member, most credits first" data-testid="usage-by-member">
            <TableHeaderRow
              columns={["Member", { label: "Requests", ...number }, { label: "Failed", ...number }, { label: "Credits", ...number }]}
            />
            <TableBody>
              {members.map((member) => (
                <TableRow key={member.id} data-testid="usage-member-row" data-member-id={member.id}>
                  <TableCell>
                    <span className="block font-medium">{member.member?.name || member.label}</span>
                    {member.member ? <span className="block text-xs break-all text-muted">{member.member.email}</span> : null}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{formatCount(member.requests)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatCount(member.failed)}</TableCell>
                  <TableCell className="text-right tabular-nums" data-testid="usage-member-credits">
                    {formatCount(member.credits)}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
        <div>
          <a href={exportUrl} download className={buttonStyles({ variant: "secondary" })} data-testid="download-members-csv">
            By member (CSV)
          </a>
        </div>
      </CardContent>
    </Card>
  );
}
