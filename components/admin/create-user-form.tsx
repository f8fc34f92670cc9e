"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { FormAlert } from "@/components/ui/form-alert";
import { Button } from "@/components/ui/button";
import { FormCard } from "@/components/ui/form-card";
import { Input } from "@/components/ui/input";
import { accountKeys, createUser } from "@/lib/query/account";
import { formLevelError, isFieldError } from "@/lib/query/form-errors";
import { fieldErrors, userCreateBody } from "@/lib/users/schemas";
import { CreditAllowanceInput, NewPasswordInput } from "@/components/users/user-fields";
import type { AccountUser } from "@/lib/users/views";
import { labelled, numberValue, textValue } from "./form-values";
import { Select } from "./select";
import { SubmitButton } from "@/components/ui/submit-button";

type Fields = Partial<Record<"email" | "name" | "role" | "password" | "creditAllowance", string>>;

const labels: Record<keyof Fields, string> = {
  email: "Email",
  name: "Name",
  role: "Role",
  password: "Password",
  creditAllowance: "Credit allowance",
};

export function CreateUserForm({ onCreated, onCancel }: { onCreated: (user: AccountUser) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Fields>({});
  const mutation = useMutation({
    mutationFn: createUser,
    onSuccess: async (user) => {
      queryClient.setQueryData<AccountUser[]>(accountKeys.users, (users) => (users ? [...users, user] : [user]));
      await queryClient.invalidateQueries({ queryKey: accountKeys.users });
      onCreated(user);
    },
    onError: (error) => {
      if (isFieldError(error, "email_taken")) setErrors({ email: error.message });
    },
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    mutation.reset();
    const parsed = userCreateBody.safeParse({
      email: textValue(form, "email"),
      name: textValue(form, "name"),
      role: textValue(form, "role"),
      password: textValue(form, "password"),
      creditAllowance: numberValue(form, "creditAllowance"),
    });
    if (!parsed.success) {
      const found = fieldErrors(parsed.error);
      setErrors(
        Object.fromEntries(
          (Object.keys(labels) as Array<keyof Fields>).map((field) => [field, labelled(labels[field], found[field])]),
        ),
      );
      return;
    }
    setErrors({});
    mutation.mutate(parsed.data);
  };

  const serverError = formLevelError(mutation.error, "email_taken");

  return (
    <FormCard
      title="Create a user"
      description="Share the password through a safe channel; they can change it on their account page."
      onSubmit={onSubmit}
      pending={mutation.isPending}
      contentClassName="grid gap-4 sm:grid-cols-2"
      footerClassName="justify-end"
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} disabled={mutation.isPending}>
            Cancel
          </Button>
          <SubmitButton pending={mutation.isPending} pendingLabel="Creating…">
            Create user
          </SubmitButton>
        </>
      }
    >
      <Input label="Email" name="email" type="email" autoComplete="off" spellCheck={false} required autoFocus error={errors.email} />
      <Input label="Name" name="name" autoComplete="off" required error={errors.name} />
      <Select label="Role" name="role" defaultValue="analyst" hint="Admins manage users, credits and every key.">
        <option value="analyst">Analyst</option>
        <option value="admin">Admin</option>
      </Select>
      <CreditAllowanceInput defaultValue={0} hint="Credits an analyst may give to their own keys." error={errors.creditAllowance} />
      <NewPasswordInput label="Password" name="password" error={errors.password} className="sm:col-span-2" />
      <div className="sm:col-span-2">
        <FormAlert error={serverError} />
      </div>
    </FormCard>
  );
}
