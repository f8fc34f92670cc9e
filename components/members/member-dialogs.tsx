"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { ConfirmDialog } from "@/components/console/confirm-dialog";
import { errorMessage, formatCount, parseWholeNumber } from "@/components/keys/format";
import { roleLabels, roleSummaries } from "@/components/workspaces/role-labels";
import { controlClass, Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { refreshWorkspace, removeMember, updateMember, type Member, type WorkspaceRole } from "@/lib/query/workspaces";

/**
 * The Members page's row actions, each one dialog and one request: change the role, set the
 * monthly budget, remove. `onDone` gets the sentence the page announces.
 */
export type MemberAction = { kind: "role" | "budget" | "remove"; member: Member };

type DialogProps = { workspaceId: string; action: MemberAction | null; grantable: readonly WorkspaceRole[]; onDone: (note: string) => void; onClose: () => void };

const useMemberMutation = <Input,>(run: (input: Input) => Promise<unknown>, onSuccess: (input: Input) => void) => {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: run, onSuccess: (_data, input) => onSuccess(input), onSettled: () => refreshWorkspace(queryClient) });
};

function RoleDialog({ workspaceId, action, grantable, onDone, onClose }: DialogProps) {
  const member = action?.kind === "role" ? action.member : null;
  const selectId = useId();
  const [role, setRole] = useState<WorkspaceRole | null>(null);
  const mutation = useMemberMutation(
    (input: { member: Member; role: WorkspaceRole }) => updateMember(workspaceId, input.member.userId, { role: input.role }),
    (input) => onDone(`${input.member.email} is now ${roleLabels[input.role].toLowerCase()}.`),
  );
  const chosen = role ?? member?.role ?? "analyst";
  const close = () => {
    setRole(null);
    mutation.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      open={member !== null}
      title={`Role of ${member?.email ?? ""}`}
      confirmLabel="Save role"
      pendingLabel="Saving…"
      pending={mutation.isPending}
      error={mutation.isError ? errorMessage(mutation.error) : undefined}
      onConfirm={() => member && mutation.mutate({ member, role: chosen })}
      onClose={close}
    >
      <Field label="Role" htmlFor={selectId}>
        <select id={selectId} className={controlClass} value={chosen} onChange={(event) => setRole(event.target.value as WorkspaceRole)}>
          {grantable.map((option) => (
            <option key={option} value={option}>
              {roleLabels[option]}
            </option>
          ))}
        </select>
      </Field>
      <p className="text-xs text-muted">{roleSummaries[chosen]}</p>
    </ConfirmDialog>
  );
}

function BudgetDialog({ workspaceId, action, onDone, onClose }: DialogProps) {
  const member = action?.kind === "budget" ? action.member : null;
  const [fieldError, setFieldError] = useState<string>();
  const mutation = useMemberMutation(
    (input: { member: Member; credits: number | null }) => updateMember(workspaceId, input.member.userId, { monthlyBudgetCredits: input.credits }),
    (input) =>
      onDone(
        input.credits === null
          ? `${input.member.email} has no monthly budget: only the pool and their keys' caps bound them.`
          : `${input.member.email} may spend ${formatCount(input.credits)} credits of the pool a month.`,
      ),
  );
  const close = () => {
    setFieldError(undefined);
    mutation.reset();
    onClose();
  };
  const onConfirm = (form: FormData) => {
    if (!member) return;
    const raw = String(form.get("budget") ?? "").trim();
    if (raw === "") return mutation.mutate({ member, credits: null });
    const credits = parseWholeNumber(raw);
    if (credits === null) return setFieldError("Enter a whole number of credits, or leave it empty for no budget.");
    setFieldError(undefined);
    mutation.mutate({ member, credits });
  };
  return (
    <ConfirmDialog
      open={member !== null}
      title={`Monthly budget of ${member?.email ?? ""}`}
      description="Credits their keys may draw from the pool per calendar month (UTC). Empty: no budget of their own."
      confirmLabel="Save budget"
      pendingLabel="Saving…"
      pending={mutation.isPending}
      error={mutation.isError ? errorMessage(mutation.error) : undefined}
      onConfirm={onConfirm}
      onClose={close}
    >
      <Input
        label="Monthly budget (credits)"
        name="budget"
        type="number"
        inputMode="numeric"
        min={0}
        step={1}
        defaultValue={member?.monthlyBudgetCredits ?? ""}
        error={fieldError}
      />
    </ConfirmDialog>
  );
}

function RemoveDialog({ workspaceId, action, onDone, onClose }: DialogProps) {
  const member = action?.kind === "remove" ? action.member : null;
  const mutation = useMemberMutation(
    (target: Member) => removeMember(workspaceId, target.userId),
    (target) => onDone(`${target.email} was removed; the keys they made here no longer work.`),
  );
  return (
    <ConfirmDialog
      open={member !== null}
      title={`Remove ${member?.email ?? ""}?`}
      description={
        <ul className="list-disc space-y-1 pl-5">
          <li>Every key they made in this workspace is revoked at once, their console key here too.</li>
          <li>Their running batches finish under the workspace, on the pool.</li>
          <li>Their usage history stays, attributed to them.</li>
          <li>They can only come back with a new invitation.</li>
        </ul>
      }
      confirmLabel="Remove member"
      pendingLabel="Removing…"
      variant="danger"
      pending={mutation.isPending}
      error={mutation.isError ? errorMessage(mutation.error) : undefined}
      onConfirm={() => member && mutation.mutate(member)}
      onClose={() => {
        mutation.reset();
        onClose();
      }}
    />
  );
}

export function MemberDialogs(props: DialogProps) {
  return (
    <>
      <RoleDialog {...props} />
      <BudgetDialog {...props} />
      <RemoveDialog {...props} />
    </>
  );
}
