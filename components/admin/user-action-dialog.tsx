"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { ConfirmDialog } from "@/components/console/confirm-dialog";
import { accountKeys, updateUser } from "@/lib/query/account";
import { fieldErrors, userPatchBody, type UserPatchInput } from "@/lib/users/schemas";
import { CreditAllowanceInput, NewPasswordInput } from "@/components/users/user-fields";
import type { AccountUser } from "@/lib/users/views";
import { labelled, numberValue, textValue } from "./form-values";

export type UserActionKind = "disable" | "enable" | "password" | "allowance";
export type UserAction = { kind: UserActionKind; user: AccountUser };

const numberFormat = new Intl.NumberFormat("en-US");

/** A row action: its dialog's words, the PATCH it sends, the field it asks for, the notice once done. */
type UserActionSpec = {
  title: (user: AccountUser) => string;
  description: string;
  confirmLabel: string;
  pendingLabel: string;
  variant?: "danger";
  patch: (form: FormData) => unknown;
  /** The notice, about the user as the server returned them. */
  done: (user: AccountUser) => string;
  field?: { label: string; input: (user: AccountUser, error: string | undefined) => ReactNode };
};

const userActions: Record<UserActionKind, UserActionSpec> = {
  disable: {
    title: (user) => `Disable ${user.email}?`,
    description: "Their sessions end and their API keys stop working at once. You can enable the account again later.",
    confirmLabel: "Disable user",
    pendingLabel: "Disabling…",
    variant: "danger",
    patch: () => ({ status: "disabled" }),
    done: (user) => `${user.email} is disabled: their sessions and API keys stopped working.`,
  },
  enable: {
    title: (user) => `Enable ${user.email}?`,
    description: "They can sign in again, and their keys that were not revoked work again.",
    confirmLabel: "Enable user",
    pendingLabel: "Enabling…",
    patch: () => ({ status: "active" }),
    done: (user) => `${user.email} can sign in again.`,
  },
  password: {
    title: (user) => `Reset the password of ${user.email}`,
    description: "They are signed out everywhere and sign in with this password. Share it through a safe channel.",
    confirmLabel: "Reset password",
    pendingLabel: "Resetting…",
    patch: (form) => ({ password: textValue(form, "password") }),
    done: (user) => `${user.email} has a new password and was signed out everywhere.`,
    field: {
      label: "Password",
      input: (_user, error) => <NewPasswordInput label="New password" name="password" error={error} />,
    },
  },
  allowance: {
    title: (user) => `Credit allowance of ${user.email}`,
    description: "How many credits they may still give to new keys. Keys already issued keep their credits.",
    confirmLabel: "Save allowance",
    pendingLabel: "Saving…",
    patch: (form) => ({ creditAllowance: numberValue(form, "creditAllowance") }),
    done: (user) => `${user.email} may now give ${numberFormat.format(user.creditAllowance)} credits to their keys.`,
    field: {
      label: "Credit allowance",
      input: (user, error) => <CreditAllowanceInput defaultValue={user.creditAllowance} error={error} />,
    },
  },
};

/** One dialog for the row actions of the users table; each is a single PATCH /api/admin/users/:id. */
export function UserActionDialog({
  action,
  onClose,
  onDone,
}: {
  action: UserAction | null;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const queryClient = useQueryClient();
  const [fieldError, setFieldError] = useState<string>();
  const mutation = useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UserPatchInput }) => updateUser(id, patch),
    onSuccess: async (updated) => {
      queryClient.setQueryData<AccountUser[]>(accountKeys.users, (users) =>
        users?.map((user) => (user.id === updated.id ? updated : user)),
      );
      await queryClient.invalidateQueries({ queryKey: accountKeys.users });
    },
  });

  const close = () => {
    setFieldError(undefined);
    mutation.reset();
    onClose();
  };

  if (!action) return <ConfirmDialog open={false} title="" confirmLabel="" onConfirm={() => undefined} onClose={close} />;
  const { kind, user } = action;
  const spec = userActions[kind];

  const onConfirm = (form: FormData) => {
    mutation.reset();
    const parsed = userPatchBody.safeParse(spec.patch(form));
    if (!parsed.success) {
      const found = fieldErrors(parsed.error);
      const message = found.password ?? found.creditAllowance ?? found.form;
      setFieldError(spec.field ? labelled(spec.field.label, message) : message);
      return;
    }
    setFieldError(undefined);
    mutation.mutate(
      { id: user.id, patch: parsed.data },
      {
        onSuccess: (updated) => {
          close();
          onDone(spec.done(updated));
        },
      },
    );
  };

  return (
    <ConfirmDialog
      open
      pending={mutation.isPending}
      error={mutation.error?.message}
      onConfirm={onConfirm}
      onClose={close}
      title={spec.title(user)}
      description={spec.description}
      confirmLabel={spec.confirmLabel}
      pendingLabel={spec.pendingLabel}
      variant={spec.variant}
    >
      {spec.field?.input(user, fieldError)}
    </ConfirmDialog>
  );
}
