"use client";

import { useQuery } from "@tanstack/react-query";
import { signIn, signOut } from "next-auth/react";
import Link from "next/link";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import { errorMessage, formatDateTime } from "@/components/keys/format";
import { roleLabels } from "@/components/workspaces/role-labels";
import { Button, buttonStyles } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { acceptInvitation, previewInvitation, switchWorkspace, type InvitationPreview } from "@/lib/query/workspaces";

/**
 * The invitation page (/invitations/accept#token=…). The token rides in the fragment, which no
 * server log or Referer sees; while the invitee signs in it waits in this tab's session storage.
 * The page first asks what the link is for (preview), then: signed in as the invited address,
 * one button joins; signed out, sign in — or, for an address without an account, set a password.
 */
const PAGE = "/invitations/accept";
const STORED = "invitation-token";
/** Where a new member lands: the workspace's keys, with the workspace active. */
const LANDING = "/keys";

const tokenOf = (): string | null => {
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get("token");
  if (fromHash) {
    window.sessionStorage.setItem(STORED, fromHash);
    return fromHash;
  }
  return window.sessionStorage.getItem(STORED);
};

const noSubscription = () => () => undefined;

const joined = async (workspaceId: string) => {
  window.sessionStorage.removeItem(STORED);
  await switchWorkspace(workspaceId);
  window.location.assign(LANDING);
};

function JoinSignedIn({ token, preview, signedInEmail }: { token: string; preview: InvitationPreview; signedInEmail: string }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (signedInEmail.toLowerCase() !== preview.email.toLowerCase()) {
    return (
      <div className="flex flex-col gap-3">
        <p className="text-sm" data-testid="invitation-wrong-account">
          This invitation is for <strong className="font-semibold">{preview.email}</strong>, and you are signed in as {signedInEmail}. Sign out, then
          open the link again and sign in as {preview.email}.
        </p>
        <Button variant="secondary" onClick={() => void signOut({ callbackUrl: PAGE })}>
          Sign out
        </Button>
      </div>
    );
  }
  const onJoin = async () => {
    setPending(true);
    setError(null);
    try {
      await joined((await acceptInvitation({ token })).workspace.id);
    } catch (failure) {
      setError(errorMessage(failure));
      setPending(false);
    }
  };
  return (
    <div className="flex flex-col gap-3">
      <FormError message={error} testId="accept-error" />
      <Button size="lg" onClick={() => void onJoin()} disabled={pending} data-testid="accept-invitation">
        {pending ? "Joining…" : `Join ${preview.workspaceName}`}
      </Button>
    </div>
  );
}

function SetPasswordAndJoin({ token, preview }: { token: string; preview: InvitationPreview }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<{ name?: string; password?: string }>({});
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    const password = String(form.get("password") ?? "");
    const errors = {
      name: name ? undefined : "Enter your name.",
      password: password.length >= 12 ? undefined : "Choose a password of at least 12 characters.",
    };
    setFieldErrors(errors);
    if (errors.name || errors.password) return;
    setPending(true);
    setError(null);
    try {
      const accepted = await acceptInvitation({ token, password, name });
      const result = await signIn("credentials", { redirect: false, email: preview.email, password });
      if (!result?.ok || result.error) throw new Error(`You joined; sign in as ${preview.email} with the password you chose.`);
      await joined(accepted.workspace.id);
    } catch (failure) {
      setError(errorMessage(failure));
      setPending(false);
    }
  };
  return (
    <form noValidate onSubmit={(event) => void onSubmit(event)} className="flex flex-col gap-4" aria-busy={pending || undefined}>
      <p className="text-sm text-muted">{preview.email} has no account here yet: set a password and you join at once.</p>
      <Input label="Your name" name="name" autoComplete="name" required error={fieldErrors.name} data-testid="accept-name" />
      <Input
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 12 characters."
        error={fieldErrors.password}
        data-testid="accept-password"
      />
      <FormError message={error} testId="accept-error" />
      <Button type="submit" size="lg" disabled={pending} data-testid="accept-with-password">
        {pending ? "Joining…" : "Set password and join"}
      </Button>
    </form>
  );
}

function Invitation({ token, signedInEmail }: { token: string; signedInEmail: string | null }) {
  const preview = useQuery({ queryKey: ["invitation", token], queryFn: () => previewInvitation(token), retry: false, staleTime: Infinity });
  if (preview.isPending) return <p role="status" className="text-sm text-muted">Reading the invitation…</p>;
  if (preview.isError)
    return <FormError message={`This invitation cannot be used: ${errorMessage(preview.error)}`} testId="invitation-error" />;
  const invitation = preview.data;
  return (
    <div className="flex flex-col gap-5" data-testid="invitation">
      <p className="text-sm">
        <strong className="font-semibold">{invitation.workspaceName}</strong> invites <strong className="font-semibold">{invitation.email}</strong> as{" "}
        {roleLabels[invitation.role].toLowerCase()}. The link works once, until {formatDateTime(invitation.expiresAt)}.
      </p>
      {signedInEmail !== null ? (
        <JoinSignedIn token={token} preview={invitation} signedInEmail={signedInEmail} />
      ) : invitation.hasAccount ? (
        <div className="flex flex-col gap-2">
          <p className="text-sm text-muted">Sign in as {invitation.email}; you come back here to join.</p>
          <Link href={`/signin?callbackUrl=${encodeURIComponent(PAGE)}`} className={buttonStyles({ size: "lg" })} data-testid="invitation-sign-in">
            Sign in to join
          </Link>
        </div>
      ) : invitation.signUpOpen ? (
        <SetPasswordAndJoin token={token} preview={invitation} />
      ) : (
        <p className="text-sm text-muted" data-testid="invitation-no-account">
          There is no account for {invitation.email} yet, and on this service accounts are made by its administrator. Ask them to create
          yours, then open this link again to join.
        </p>
      )}
    </div>
  );
}

export function AcceptInvitation({ signedInEmail }: { signedInEmail: string | null }) {
  // The fragment exists only in the browser: the server renders the "reading" state.
  const token = useSyncExternalStore(noSubscription, tokenOf, () => undefined);
  if (token === undefined) return <p role="status" className="text-sm text-muted">Reading the invitation…</p>;
  if (token === null)
    return <FormError message="This page needs the whole invitation link, as it was shown to the person who invited you." testId="invitation-error" />;
  return <Invitation token={token} signedInEmail={signedInEmail} />;
}
