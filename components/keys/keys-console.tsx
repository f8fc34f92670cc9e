"use client";

import { useIsMutating, useQuery } from "@tanstack/react-query";
import { useMemo, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { meQuery, usersQuery } from "@/lib/query/account";
import { keysQuery, keysQueryKey, type ApiKeyView } from "@/lib/query/keys";
import { activeWorkspace, workspacesQuery } from "@/lib/query/workspaces";
import { roleMay } from "@/lib/workspaces/roles";
import { PoolSummary } from "./pool-summary";
import type { Me } from "@/lib/users/views";
import { ConsoleKeyForm } from "./console-key-dialog";
import { CreateKeyForm } from "./create-key-form";
import { KeysNotLoaded } from "./keys-not-loaded";
import { formatCount } from "./format";
import { KeyPolicyForm } from "./key-policy-dialog";
import { KeysTable, type KeyAction } from "./keys-table";
import { Modal } from "@/components/ui/modal";
import { RevokeKeyForm } from "./revoke-dialog";
import { graceNote, RollKeyForm } from "./roll-dialog";
import { TokenReveal, type RevealedToken } from "./token-reveal";
import { TopUpForm } from "./top-up-form";

export type KeysConsoleProps = {
  /** The signed-in account as the server page saw it; refreshed from /api/me after key changes. */
  initialMe: Me;
};

type OpenAction = { action: KeyAction; key: ApiKeyView };

const dialogTitles: Record<KeyAction, (key: ApiKeyView) => string> = {
  revoke: (key) => `Revoke “${key.name}”?`,
  roll: (key) => `Roll “${key.name}”`,
  console: (key) => `Use “${key.name}” for console lookups`,
  topup: (key) => `Top up “${key.name}”`,
  limits: (key) => `Limits of “${key.name}”`,
};

/** The /keys page: create, list, revoke, roll, choose the console key; admins also see every key and top up. */
export function KeysConsole({ initialMe }: KeysConsoleProps) {
  const isAdmin = initialMe.role === "admin";
  const [scope, setScope] = useState<"mine" | "all">("mine");
  const [revealed, setRevealed] = useState<RevealedToken | null>(null);
  const [open, setOpen] = useState<OpenAction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // In a team workspace the page is that workspace's: its pool, its keys and who made them.
  const workspaces = useQuery(workspacesQuery());
  const workspace = activeWorkspace(workspaces.data);
  const team = workspace && !workspace.personal ? workspace : undefined;
  const mayMakeKeys = !team || isAdmin || (team.role !== null && roleMay(team.role, "keys.own"));
  const keys = useQuery({
    ...keysQuery(team ? { workspaceId: team.id } : isAdmin ? scope : "mine"),
    // A viewer makes no keys, but sees (and may revoke) those they made before a demotion: suspended.
    enabled: !workspaces.isPending && (mayMakeKeys || team !== undefined),
  });
  const me = useQuery({ ...meQuery(), initialData: initialMe });
  const showOwner = isAdmin && scope === "all" && !team;
  const users = useQuery({ ...usersQuery(), enabled: showOwner });
  const ownerEmails = useMemo(
    () => new Map((users.data ?? []).map((user) => [user.id, user.email] as const)),
    [users.data],
  );
  const busy = useIsMutating({ mutationKey: keysQueryKey }) > 0;
  // A viewer's list: only the keys they made before a demotion, suspended; none, no list.
  const suspendedOnly = !mayMakeKeys && team !== undefined && keys.data !== undefined && keys.data.length > 0;

  const allowance = isAdmin ? null : me.data.creditAllowance;
  const allowanceText = isAdmin
    ? "Administrators grant credits without an allowance."
    : `You can hand out ${formatCount(me.data.creditAllowance)} more credits across your keys.`;

  const close = () => setOpen(null);
  const openAction = (action: KeyAction, key: ApiKeyView) => {
    setNotice(null);
    setOpen({ action, key });
  };
  /** The dialog is done: it closes and the page says what happened. */
  const finish = (message: string) => {
    close();
    setNotice(message);
  };
  const dialog = { open, onClose: close, busy };

  return (
    <>
      {revealed ? <TokenReveal revealed={revealed} onDone={() => setRevealed(null)} /> : null}

      {team ? <PoolSummary workspace={team} /> : null}

      {!mayMakeKeys ? (
        <p className="rounded-xl border border-dashed border-border-strong p-6 text-sm text-muted" data-testid="keys-viewer">
          As a viewer of {team?.name} you make no keys and run no lookups; its usage and audit log are open to you.
          {keys.data !== undefined && keys.data.length > 0
            ? " The keys you made here before are suspended (below) until an owner or admin makes you an analyst or above again; you may revoke them."
            : null}
        </p>
      ) : null}

      {mayMakeKeys ? (
      <CreateKeyForm
        workspace={team ? { id: team.id, name: team.name } : undefined}
        allowance={allowance}
        allowanceText={allowanceText}
        onIssued={(issued) => {
          setNotice(null);
          setRevealed({
            title: `Your new key “${issued.key.name}”`,
            token: issued.token,
            note: issued.key.isConsoleKey ? "The console now uses this key for your lookups." : undefined,
          });
        }}
      />
      ) : null}

      {mayMakeKeys || suspendedOnly ? (
      <section aria-labelledby="keys-list-heading" className="flex flex-col gap-4" data-testid={suspendedOnly ? "keys-suspended" : undefined}>
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="keys-list-heading" className="text-lg font-semibold tracking-tight">
            {suspendedOnly ? `Your keys in ${team?.name}` : team ? `Keys of ${team.name}` : isAdmin && scope === "all" ? "All keys" : "Your keys"}
          </h2>
          {isAdmin && !team ? (
            <div role="group" aria-label="Which keys" className="inline-flex rounded-lg border border-border-strong p-0.5">
              {(["mine", "all"] as const).map((option) => (
                <button
                  key={option}
                  type="button"
                  aria-pressed={scope === option}
                  onClick={() => setScope(option)}
                  data-testid={`scope-${option}`}
                  className={cx(
                    "rounded-md px-3 py-1.5 text-sm font-medium transition-colors",
                    scope === option ? "bg-accent text-accent-foreground" : "text-muted hover:text-foreground",
                  )}
                >
                  {option === "mine" ? "My keys" : "All keys"}
                </button>
              ))}
            </div>
          ) : null}
        </div>

        <p role="status" data-testid="key-notice" className="text-sm font-medium text-success empty:hidden">
          {notice}
        </p>

        {keys.data === undefined ? (
          <KeysNotLoaded keys={keys} />
        ) : keys.data.length === 0 ? (
          <p
            className="rounded-xl border border-dashed border-border-strong p-6 text-center text-sm text-muted"
            data-testid="keys-empty"
          >
            {team ? "No keys in this workspace yet. Create one above." : scope === "all" ? "No keys exist yet." : "You have no keys yet. Create one above."}
          </p>
        ) : (
          <KeysTable
            keys={keys.data}
            viewerId={initialMe.id}
            isAdmin={isAdmin}
            showOwner={showOwner}
            ownerEmails={ownerEmails}
            team={team !== undefined}
            onAction={openAction}
          />
        )}
      </section>
      ) : null}

      <KeyDialog action="revoke" {...dialog}>
        {(key) => <RevokeKeyForm apiKey={key} onCancel={close} onRevoked={(revoked) => finish(`“${revoked.name}” is revoked.`)} />}
      </KeyDialog>

      <KeyDialog action="roll" {...dialog} description="The key gets a new token; its credits, limit and history stay.">
        {(key) => (
          <RollKeyForm
            apiKey={key}
            onCancel={close}
            onRolled={(rolled, grace) => {
              close();
              setRevealed({ title: `New token for “${rolled.key.name}”`, token: rolled.token, note: graceNote(grace) });
            }}
          />
        )}
      </KeyDialog>

      <KeyDialog action="limits" {...dialog} description="What the key may call, from where, how it is refilled and when it alerts.">
        {(key) => <KeyPolicyForm apiKey={key} onCancel={close} onSaved={(saved) => finish(`Saved the limits of “${saved.name}”.`)} />}
      </KeyDialog>

      <KeyDialog action="console" {...dialog}>
        {(key) => (
          <ConsoleKeyForm apiKey={key} onCancel={close} onChosen={(chosen) => finish(`The console now runs your lookups with “${chosen.name}”.`)} />
        )}
      </KeyDialog>

      {isAdmin ? (
        <KeyDialog action="topup" {...dialog}>
          {(key) => (
            <TopUpForm
              apiKey={key}
              cancel={
                <Button variant="secondary" onClick={close} disabled={busy} data-testid="cancel-topup">
                  Cancel
                </Button>
              }
              onToppedUp={(toppedUp, credits) =>
                finish(`Added ${formatCount(credits)} credits to “${toppedUp.name}”: ${formatCount(toppedUp.creditsRemaining)} left.`)
              }
            />
          )}
        </KeyDialog>
      ) : null}
    </>
  );
}

/** The dialog of one key action: open while that action is chosen, its form built for the chosen key. */
function KeyDialog({
  action,
  open,
  onClose,
  busy,
  description,
  children,
}: {
  action: KeyAction;
  open: OpenAction | null;
  onClose: () => void;
  busy: boolean;
  description?: string;
  children: (key: ApiKeyView) => ReactNode;
}) {
  const key = open?.action === action ? open.key : null;
  return (
    <Modal
      open={key !== null}
      onClose={onClose}
      busy={busy}
      title={key ? dialogTitles[action](key) : ""}
      description={description}
      testId={`${action}-dialog`}
    >
      {key ? children(key) : null}
    </Modal>
  );
}
