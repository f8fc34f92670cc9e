"use client";

import { useIsMutating, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { meQuery, usersQuery } from "@/lib/query/account";
import { keysQuery, keysQueryKey, type ApiKeyView, type KeyScope } from "@/lib/query/keys";
import type { Me } from "@/lib/users/views";
import { ConsoleKeyForm } from "./console-key-dialog";
import { CreateKeyForm } from "./create-key-form";
import { KeysNotLoaded } from "./keys-not-loaded";
import { formatCount } from "./format";
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
};

/** The /keys page: create, list, revoke, roll, choose the console key; admins also see every key and top up. */
export function KeysConsole({ initialMe }: KeysConsoleProps) {
  const isAdmin = initialMe.role === "admin";
  const [scope, setScope] = useState<KeyScope>("mine");
  const [revealed, setRevealed] = useState<RevealedToken | null>(null);
  const [open, setOpen] = useState<OpenAction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const keys = useQuery(keysQuery(isAdmin ? scope : "mine"));
  const me = useQuery({ ...meQuery(), initialData: initialMe });
  const showOwner = isAdmin && scope === "all";
  const users = useQuery({ ...usersQuery(), enabled: showOwner });
  const ownerEmails = useMemo(
    () => new Map((users.data ?? []).map((user) => [user.id, user.email] as const)),
    [users.data],
  );
  const busy = useIsMutating({ mutationKey: keysQueryKey }) > 0;

  const allowance = isAdmin ? null : me.data.creditAllowance;
  const allowanceText = isAdmin
    ? "Administrators grant credits without an allowance."
    : `You can hand out ${formatCount(me.data.creditAllowance)} more credits across your keys.`;

  const close = () => setOpen(null);
  const openAction = (action: KeyAction, key: ApiKeyView) => {
    setNotice(null);
    setOpen({ action, key });
  };
  const dialogFor = (action: KeyAction) => (open?.action === action ? open.key : null);
  const revokeTarget = dialogFor("revoke");
  const rollTarget = dialogFor("roll");
  const consoleTarget = dialogFor("console");
  const topUpTarget = dialogFor("topup");

  return (
    <>
      {revealed ? <TokenReveal revealed={revealed} onDone={() => setRevealed(null)} /> : null}

      <CreateKeyForm
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

      <section aria-labelledby="keys-list-heading" className="flex flex-col gap-4">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="keys-list-heading" className="text-lg font-semibold tracking-tight">
            {isAdmin && scope === "all" ? "All keys" : "Your keys"}
          </h2>
          {isAdmin ? (
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
            {scope === "all" ? "No keys exist yet." : "You have no keys yet. Create one above."}
          </p>
        ) : (
          <KeysTable
            keys={keys.data}
            viewerId={initialMe.id}
            isAdmin={isAdmin}
            showOwner={showOwner}
            ownerEmails={ownerEmails}
            onAction={openAction}
          />
        )}
      </section>

      <Modal
        open={revokeTarget !== null}
        onClose={close}
        busy={busy}
        title={revokeTarget ? dialogTitles.revoke(revokeTarget) : ""}
        testId="revoke-dialog"
      >
        {revokeTarget ? (
          <RevokeKeyForm
            apiKey={revokeTarget}
            onCancel={close}
            onRevoked={(key) => {
              close();
              setNotice(`“${key.name}” is revoked.`);
            }}
          />
        ) : null}
      </Modal>

      <Modal
        open={rollTarget !== null}
        onClose={close}
        busy={busy}
        title={rollTarget ? dialogTitles.roll(rollTarget) : ""}
        description="The key gets a new token; its credits, limit and history stay."
        testId="roll-dialog"
      >
        {rollTarget ? (
          <RollKeyForm
            apiKey={rollTarget}
            onCancel={close}
            onRolled={(rolled, grace) => {
              close();
              setRevealed({ title: `New token for “${rolled.key.name}”`, token: rolled.token, note: graceNote(grace) });
            }}
          />
        ) : null}
      </Modal>

      <Modal
        open={consoleTarget !== null}
        onClose={close}
        busy={busy}
        title={consoleTarget ? dialogTitles.console(consoleTarget) : ""}
        testId="console-dialog"
      >
        {consoleTarget ? (
          <ConsoleKeyForm
            apiKey={consoleTarget}
            onCancel={close}
            onChosen={(key) => {
              close();
              setNotice(`The console now runs your lookups with “${key.name}”.`);
            }}
          />
        ) : null}
      </Modal>

      {isAdmin ? (
        <Modal
          open={topUpTarget !== null}
          onClose={close}
          busy={busy}
          title={topUpTarget ? dialogTitles.topup(topUpTarget) : ""}
          testId="topup-dialog"
        >
          {topUpTarget ? (
            <TopUpForm
              apiKey={topUpTarget}
              cancel={
                <Button variant="secondary" onClick={close} disabled={busy} data-testid="cancel-topup">
                  Cancel
                </Button>
              }
              onToppedUp={(key, credits) => {
                close();
                setNotice(
                  `Added ${formatCount(credits)} credits to “${key.name}”: ${formatCount(key.creditsRemaining)} left.`,
                );
              }}
            />
          ) : null}
        </Modal>
      ) : null}
    </>
  );
}
