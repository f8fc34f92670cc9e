"use client";

import { signIn } from "next-auth/react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { errorMessage } from "@/components/keys/format";
import { Button, buttonStyles } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { acceptInvitation, switchWorkspace } from "@/lib/query/workspaces";

/** Where a new member lands: the workspace's keys, with the workspace active. */
const LANDING = "/keys";

const join = async (input: { token: string; password?: string; name?: string }) => {
  const { workspace } = await acceptInvitation(input);
  return workspace;
};

/** Signed in: one button joins the workspace the link invites to, and makes it the active one. */
export function AcceptSignedIn({ token, email }: { token: string; email: string }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onAccept = async () => {
    setPending(true);
    setError(null);
    try {
      const workspace = await join({ token });
      await switchWorkspace(workspace.id);
      window.location.assign(LANDING);
    } catch (failure) {
      setError(errorMessage(failure));
      setPending(false);
    }
  };
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted">
        You are signed in as <span className="font-medium text-foreground">{email}</span>. The invitation must be for this address.
      </p>
      <FormError message={error} testId="accept-error" />
      <Button size="lg" onClick={() => void onAccept()} disabled={pending} data-testid="accept-invitation">
        {pending ? "Joining…" : "Join the workspace"}
      </Button>
    </div>
  );
}

type FieldErrors = { email?: string; name?: string; password?: string };

/**
 * Signed out: sign in (and come back here), or — for someone without an account — set a
 * password: the account is made for the invited address, then signed in.
 */
export function AcceptSignedOut({ token }: { token: string }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const back = `/invite/${encodeURIComponent(token)}`;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const name = String(form.get("name") ?? "").trim();
    const password = String(form.get("password") ?? "");
    const errors: FieldErrors = {
      email: email ? undefined : "Enter the address the invitation was sent to.",
      name: name ? undefined : "Enter your name.",
      password: password.length >= 12 ? undefined : "Choose a password of at least 12 characters.",
    };
    setFieldErrors(errors);
    if (errors.email || errors.name || errors.password) return;
    setPending(true);
    setError(null);
    try {
      const workspace = await join({ token, password, name });
      const result = await signIn("credentials", { redirect: false, email, password });
      if (!result?.ok || result.error) {
        setError("Your account was made for the invited address: sign in with that address and the password you chose.");
        setPending(false);
        return;
      }
      await switchWorkspace(workspace.id);
      window.location.assign(LANDING);
    } catch (failure) {
      setError(errorMessage(failure));
      setPending(false);
    }
  };

  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="have-account" className="flex flex-col gap-2">
        <h2 id="have-account" className="text-base font-semibold tracking-tight">
          You have an account
        </h2>
        <p className="text-sm text-muted">Sign in with the invited address; you come back here to join.</p>
        <Link href={`/signin?callbackUrl=${encodeURIComponent(back)}`} className={buttonStyles({ variant: "secondary" })} data-testid="invite-sign-in">
          Sign in to join
        </Link>
      </section>
      <section aria-labelledby="new-account" className="flex flex-col gap-3 border-t border-border pt-5">
        <h2 id="new-account" className="text-base font-semibold tracking-tight">
          You are new here
        </h2>
        <p className="text-sm text-muted">Set a password: your account is made for the invited address and joins the workspace.</p>
        <form noValidate onSubmit={(event) => void onSubmit(event)} className="flex flex-col gap-4" aria-busy={pending || undefined}>
          <Input label="Invited e-mail address" name="email" type="email" autoComplete="username" spellCheck={false} required error={fieldErrors.email} />
          <Input label="Your name" name="name" autoComplete="name" required error={fieldErrors.name} />
          <Input
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            hint="At least 12 characters."
            error={fieldErrors.password}
          />
          <FormError message={error} testId="accept-error" />
          <Button type="submit" size="lg" disabled={pending} data-testid="accept-with-password">
            {pending ? "Joining…" : "Set password and join"}
          </Button>
        </form>
      </section>
    </div>
  );
}
