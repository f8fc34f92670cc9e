"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "@/components/console/confirm-dialog";
import { accountKeys, updateUser } from "@/lib/query/account";
import { fieldErrors, userPatchBody, type UserPatchInput } from "@/lib/users/schemas";
import { CreditAllowanceInput, NewPasswordInput } from "@/components/users/user-fields";
import type { AccountUser } from "@/lib/users/views";
import { labelled, numberValue, textValue } from "./form-values";

export type UserActionKind = "disable" | "enable" | "password" | "allowance";
export type UserAction = { kind: UserActionKind; user: AccountUser };

const numberFormat = new Intl.NumberFormat("en-US");

const doneMessage = (kind: UserActionKind, user: AccountUser): string => {
  switch (kind) {
    case "disable":
      return `${user.email} is disabled: their sessions and API keys stopped working.`;
    case "enable":
      return `${user.email} can sign in again.`;
    case "password":
      return `${user.email} has a new password and was signed out everywhere.`;
    case "allowance":
      return `${user.email} may now give ${numberFormat.format(user.creditAllowance)} credits to their keys.`;
  }
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

  const patchFrom = (form: FormData): unknown => {
    switch (kind) {
      case "disable":
        return { status: "disabled" };
      case "enable":
        return { status: "active" };
      case "password":
        return { password: textValue(form, "password") };
      case "allowance":
        return { creditAllowance: numberValue(form, "creditAllowance") };
    }
  };

  const onConfirm = (form: FormData) => {
    mutation.reset();
    const parsed = userPatchBody.safeParse(patchFrom(form));
    if (!parsed.success) {
      const found = fieldErrors(parsed.error);
      setFieldError(labelled(kind === "password" ? "Password" : "Credit allowance", found.password ?? found.creditAllowance ?? found.form));
      return;
    }
    setFieldError(undefined);
    mutation.mutate(
      { id: user.id, patch: parsed.data },
      {
        onSuccess: (updated) => {
          close();
          onDone(doneMessage(kind, updated));
        },
      },
    );
  };

  const common = { open: true, pending: mutation.isPending, error: mutation.error?.message, onConfirm, onClose: close };

  switch (kind) {
    case "disable":
      return (
        <ConfirmDialog
          {...common}
          title={`Disable ${user.email}?`}
          description="Their sessions end and their API keys stop working at once. You can enable the account again later."
          confirmLabel="Disable user"
          pendingLabel="Disabling…"
          variant="danger"
        />
      );
    case "enable":
      return (
        <ConfirmDialog
          {...common}
          title={`Enable ${user.email}?`}
          description="They can sign in again, and their keys that were not revoked work again."
          confirmLabel="Enable user"
          pendingLabel="Enabling…"
        />
      );
    case "password":
      return (
        <ConfirmDialog
          {...common}
          title={`Reset the password of ${user.email}`}
          description="They are signed out everywhere and sign in with this password. Share it through a safe channel."
          confirmLabel="Reset password"
          pendingLabel="Resetting…"
        >
          <NewPasswordInput label="New password" name="password" error={fieldError} />
        </ConfirmDialog>
      );
    case "allowance":
      return (
        <ConfirmDialog
          {...common}
          title={`Credit allowance of ${user.email}`}
          description="How many credits they may still give to new keys. Keys already issued keep their credits."
          confirmLabel="Save allowance"
          pendingLabel="Saving…"
        >
          <CreditAllowanceInput defaultValue={user.creditAllowance} error={fieldError} />
        </ConfirmDialog>
      );
  }
}
