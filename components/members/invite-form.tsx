"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { errorMessage, formatDateTime } from "@/components/keys/format";
import { roleLabels, roleSummaries } from "@/components/workspaces/role-labels";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "@/components/ui/code-block";
import { controlClass, Field } from "@/components/ui/field";
import { FormCard } from "@/components/ui/form-card";
import { FormError } from "@/components/ui/form-alert";
import { Input, verbatimText } from "@/components/ui/input";
import { SubmitButton } from "@/components/ui/submit-button";
import { inviteMember, refreshWorkspace, type IssuedInvitation, type WorkspaceRole } from "@/lib/query/workspaces";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The link of a new invitation: shown once, with a copy button; "Done" drops it for good. */
function InvitationLink({ invitation, email, onDone }: { invitation: IssuedInvitation; email: string; onDone: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), [invitation]);
  return (
    <section
      aria-labelledby="invitation-link-heading"
      data-testid="invitation-link-panel"
      className="flex flex-col gap-3 rounded-xl border border-warning/40 bg-warning-soft/60 p-5 shadow-sm"
    >
      <h2 id="invitation-link-heading" ref={headingRef} tabIndex={-1} className="text-base font-semibold tracking-tight focus:outline-none">
        Invitation for {email}
      </h2>
      <p className="text-sm font-medium text-warning">Copy the link now — it is shown only once.</p>
      <p className="text-sm text-muted">
        Send it to {email} yourself (this service sends no mail). It works once, until {formatDateTime(invitation.expiresAt)}; they sign in,
        or set a password when they have no account yet.
      </p>
      <div data-testid="invitation-url" className="min-w-0">
        <CodeBlock title="Invitation link" code={invitation.url} wrap />
      </div>
      <div>
        <Button onClick={onDone} data-testid="invitation-done">
          Done — I have copied it
        </Button>
      </div>
    </section>
  );
}

/** Invite by e-mail with a role the inviter may grant; the answer is the link, shown once. */
export function InviteForm({ workspaceId, grantable }: { workspaceId: string; grantable: readonly WorkspaceRole[] }) {
  const queryClient = useQueryClient();
  const roleId = useId();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<WorkspaceRole>(grantable.includes("analyst") ? "analyst" : (grantable[0] ?? "viewer"));
  const [emailError, setEmailError] = useState<string>();
  const [issued, setIssued] = useState<{ invitation: IssuedInvitation; email: string } | null>(null);

  const mutation = useMutation({
    mutationFn: (input: { email: string; role: WorkspaceRole }) => inviteMember(workspaceId, input),
    // The answer holds the link: no copy stays in the mutation cache.
    gcTime: 0,
    onSuccess: (invitation, input) => {
      setIssued({ invitation, email: input.email });
      setEmail("");
    },
    onSettled: () => refreshWorkspace(queryClient),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = email.trim();
    if (!EMAIL.test(trimmed)) {
      setEmailError("Enter an e-mail address, e.g. name@example.com.");
      return;
    }
    setEmailError(undefined);
    mutation.mutate({ email: trimmed, role });
  };

  if (issued) return <InvitationLink invitation={issued.invitation} email={issued.email} onDone={() => setIssued(null)} />;

  return (
    <FormCard
      title="Invite a member"
      description="They get a link that works once and expires after 7 days."
      onSubmit={onSubmit}
      pending={mutation.isPending}
      contentClassName="grid gap-4 sm:grid-cols-2"
      footer={
        <SubmitButton pending={mutation.isPending} pendingLabel="Inviting…" data-testid="invite-submit">
          Create invitation link
        </SubmitButton>
      }
    >
      <Input
        label="E-mail address"
        type="email"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={emailError}
        data-testid="invite-email"
        {...verbatimText}
      />
      <Field label="Role" htmlFor={roleId}>
        <select
          id={roleId}
          className={controlClass}
          value={role}
          onChange={(event) => setRole(event.target.value as WorkspaceRole)}
          data-testid="invite-role"
        >
          {grantable.map((option) => (
            <option key={option} value={option}>
              {roleLabels[option]}
            </option>
          ))}
        </select>
      </Field>
      <p className="text-xs text-muted sm:col-span-2">{roleSummaries[role]}</p>
      <div className="sm:col-span-2">
        <FormError message={mutation.isError ? errorMessage(mutation.error) : null} testId="invite-error" />
      </div>
    </FormCard>
  );
}
