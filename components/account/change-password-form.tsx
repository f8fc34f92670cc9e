"use client";

import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { FormCard } from "@/components/ui/form-card";
import { NewPasswordInput } from "@/components/users/user-fields";
import { Input } from "@/components/ui/input";
import { changePassword } from "@/lib/query/account";
import { formLevelError, isFieldError } from "@/lib/query/form-errors";
import { fieldErrors, passwordChangeBody, PASSWORD_MIN_LENGTH } from "@/lib/users/schemas";
import { FormAlert } from "@/components/ui/form-alert";
import { SubmitButton } from "@/components/ui/submit-button";

type Fields = { currentPassword?: string; newPassword?: string; confirmPassword?: string };

const sentence = (field: string, message: string) => `${field} ${message}.`;

/**
 * Changing the password ends every session of the account, this one included; the form signs
 * this browser in again with the new password so only the other devices are signed out.
 */
export function ChangePasswordForm({ email }: { email: string }) {
  const [errors, setErrors] = useState<Fields>({});
  const [success, setSuccess] = useState<string>();
  const mutation = useMutation({ mutationFn: changePassword });

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const input = {
      currentPassword: String(values.get("currentPassword") ?? ""),
      newPassword: String(values.get("newPassword") ?? ""),
    };
    const confirmPassword = String(values.get("confirmPassword") ?? "");
    setSuccess(undefined);
    mutation.reset();

    const parsed = passwordChangeBody.safeParse(input);
    const found = parsed.success ? {} : fieldErrors(parsed.error);
    const next: Fields = {
      currentPassword: found.currentPassword && sentence("Current password", found.currentPassword),
      newPassword: found.newPassword && sentence("New password", found.newPassword),
      confirmPassword:
        !found.newPassword && confirmPassword !== input.newPassword ? "The two new passwords do not match." : undefined,
    };
    setErrors(next);
    if (next.currentPassword || next.newPassword || next.confirmPassword) return;

    try {
      await mutation.mutateAsync(input);
    } catch (error) {
      if (isFieldError(error, "wrong_password")) setErrors({ currentPassword: error.message });
      return;
    }
    form.reset();
    const again = await signIn("credentials", { redirect: false, email, password: input.newPassword }).catch(() => undefined);
    if (!again?.ok || again.error) {
      window.location.assign("/signin?notice=password-changed&callbackUrl=%2Faccount");
      return;
    }
    setSuccess("Password changed. Every other session of this account was signed out.");
  };

  const serverError = formLevelError(mutation.error, "wrong_password");

  return (
    <FormCard
      title="Change password"
      description="Other devices are signed out when the password changes."
      onSubmit={onSubmit}
      pending={mutation.isPending}
      contentClassName="flex max-w-md flex-col gap-4"
      footer={
        <SubmitButton pending={mutation.isPending} pendingLabel="Changing password…">
          Change password
        </SubmitButton>
      }
    >
      {/* Lets password managers file the new password under the right account. */}
      <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      <Input
        label="Current password"
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        required
        error={errors.currentPassword}
      />
      <NewPasswordInput
        label="New password"
        name="newPassword"
        hint={`At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a strong one.`}
        error={errors.newPassword}
      />
      <Input
        label="Confirm new password"
        name="confirmPassword"
        type="password"
        autoComplete="new-password"
        required
        error={errors.confirmPassword}
      />
      <FormAlert error={serverError} success={success} />
    </FormCard>
  );
}
