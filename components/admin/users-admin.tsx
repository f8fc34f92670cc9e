"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { usersQuery } from "@/lib/query/account";
import type { AccountUser } from "@/lib/users/views";
import { CreateUserForm } from "./create-user-form";
import { UserActionDialog, type UserAction } from "./user-action-dialog";

const numberFormat = new Intl.NumberFormat("en-US");

/** Dates as YYYY-MM-DD in UTC: the same text on the server and in every browser. */
const day = (iso: string) => iso.slice(0, 10);

export function UsersAdmin({ initialUsers, currentUserId }: { initialUsers: AccountUser[]; currentUserId: string }) {
  const { data: users, error } = useQuery({ ...usersQuery(), initialData: initialUsers });
  const [creating, setCreating] = useState(false);
  const [action, setAction] = useState<UserAction | null>(null);
  const [notice, setNotice] = useState<string>();
  const opener = (user: AccountUser) => (kind: UserAction["kind"]) => {
    setNotice(undefined);
    setAction({ kind, user });
  };

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-muted">
          {users.length} {users.length === 1 ? "account" : "accounts"}
        </p>
        {creating ? null : (
          <Button
            onClick={() => {
              setNotice(undefined);
              setCreating(true);
            }}
          >
            <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true" className="size-4">
              <path d="M10 4v12M4 10h12" strokeLinecap="round" />
            </svg>
            Create user
          </Button>
        )}
      </div>

      {creating ? (
        <CreateUserForm
          onCancel={() => setCreating(false)}
          onCreated={(user) => {
            setCreating(false);
            setNotice(`Created ${user.email} (${user.role}).`);
          }}
        />
      ) : null}

      <div role="status" className="empty:hidden">
        {notice ? (
          <p className="rounded-lg border border-success/30 bg-success-soft px-3 py-2 text-sm font-medium text-success">{notice}</p>
        ) : null}
      </div>
      {error ? (
        <p role="alert" className="rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm font-medium text-danger">
          Could not refresh the list: {error.message}
        </p>
      ) : null}

      {/* A phone: one card per account, every field and action in view. From md up: the table. */}
      <ul className="flex flex-col gap-3 md:hidden" aria-label="Console accounts" data-testid="user-cards">
        {users.map((user) => {
          const isSelf = user.id === currentUserId;
          return (
            <li key={user.id} className="flex flex-col gap-3 rounded-xl border border-border bg-surface p-4 shadow-sm" data-testid="user-card">
              <div className="flex min-w-0 flex-col gap-0.5">
                <UserIdentity user={user} isSelf={isSelf} nameClassName="flex flex-wrap items-center gap-2 font-medium [overflow-wrap:anywhere]" detailClassName="text-xs text-muted" />
              </div>
              <dl className="grid grid-cols-3 gap-2 text-sm">
                <CardField label="Role">
                  <RoleBadge user={user} />
                </CardField>
                <CardField label="Status">
                  <StatusBadge user={user} />
                </CardField>
                <CardField label="Allowance" valueClassName="tabular-nums">
                  <Allowance user={user} />
                </CardField>
              </dl>
              <div className="relative flex flex-wrap gap-2 border-t border-border pt-3">
                <UserActions user={user} isSelf={isSelf} open={opener(user)} />
              </div>
            </li>
          );
        })}
      </ul>

      <div className="hidden md:block">
        <Table caption="Console accounts">
          <TableHeaderRow
            columns={[
              "User", "Role", "Status",
              { label: "Allowance", className: "text-right" },
              { label: "Actions", className: "relative", visuallyHidden: true },
            ]}
          />
          <TableBody>
            {users.map((user) => {
              const isSelf = user.id === currentUserId;
              return (
                <TableRow key={user.id} className="align-middle">
                  <TableCell>
                    <UserIdentity user={user} isSelf={isSelf} nameClassName="flex items-center gap-2 font-medium whitespace-nowrap" detailClassName="block text-xs whitespace-nowrap text-muted" />
                  </TableCell>
                  <TableCell>
                    <RoleBadge user={user} />
                  </TableCell>
                  <TableCell>
                    <StatusBadge user={user} />
                  </TableCell>
                  <TableCell className="text-right whitespace-nowrap tabular-nums">
                    <Allowance user={user} />
                  </TableCell>
                  <TableCell>
                    {/* `relative`: the sr-only labels are absolutely positioned and must not escape the scrolling table. */}
                    <div className="relative flex justify-end gap-1">
                      <UserActions user={user} isSelf={isSelf} open={opener(user)} />
                    </div>
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </div>

      <UserActionDialog action={action} onClose={() => setAction(null)} onDone={setNotice} />
    </div>
  );
}

/** The account's e-mail (and "You"), then its name and when it was added: the card's and the row's first lines. */
function UserIdentity({ user, isSelf, nameClassName, detailClassName }: { user: AccountUser; isSelf: boolean; nameClassName: string; detailClassName: string }) {
  return (
    <>
      <span className={nameClassName}>
        {user.email}
        {isSelf ? <Badge>You</Badge> : null}
      </span>
      <span className={detailClassName}>
        {user.name || "No name"} · added{" "}
        <time dateTime={user.createdAt} title={user.createdAt} className="tabular-nums">
          {day(user.createdAt)}
        </time>
      </span>
    </>
  );
}

/** One of an account card's fields: its name over its value. */
function CardField({ label, valueClassName, children }: { label: string; valueClassName?: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <dt className="text-xs text-muted">{label}</dt>
      <dd className={valueClassName}>{children}</dd>
    </div>
  );
}

function RoleBadge({ user }: { user: AccountUser }) {
  return <Badge variant={user.role === "admin" ? "accent" : "neutral"}>{user.role === "admin" ? "Admin" : "Analyst"}</Badge>;
}

function StatusBadge({ user }: { user: AccountUser }) {
  return <Badge variant={user.status === "active" ? "success" : "danger"}>{user.status === "active" ? "Active" : "Disabled"}</Badge>;
}

function Allowance({ user }: { user: AccountUser }) {
  return user.role === "admin" ? <span className="text-muted">Unlimited</span> : <>{numberFormat.format(user.creditAllowance)}</>;
}

/** What an admin can do with one account: the same buttons in the table and on a phone's card. */
function UserActions({ user, isSelf, open }: { user: AccountUser; isSelf: boolean; open: (kind: UserAction["kind"]) => void }) {
  return (
    <>
      {user.role === "analyst" ? (
        <Button variant="ghost" size="sm" onClick={() => open("allowance")}>
          Allowance<span className="sr-only"> of {user.email}</span>
        </Button>
      ) : null}
      <Button variant="ghost" size="sm" onClick={() => open("password")}>
        Reset password<span className="sr-only"> of {user.email}</span>
      </Button>
      {user.status === "active" ? (
        <Button
          variant="ghost"
          size="sm"
          className="text-danger hover:text-danger"
          disabled={isSelf}
          title={isSelf ? "You cannot disable your own account." : undefined}
          onClick={() => open("disable")}
        >
          Disable<span className="sr-only"> {user.email}</span>
        </Button>
      ) : (
        <Button variant="ghost" size="sm" onClick={() => open("enable")}>
          Enable<span className="sr-only"> {user.email}</span>
        </Button>
      )}
    </>
  );
}
