"use client";

import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { changePassword } from "@/lib/query/account";
import { ConsoleApiError } from "@/lib/query/fetch-json";
import { fieldErrors, passwordChangeBody, PASSWORD_MIN_LENGTH } from "@/lib/users/schemas";
import { FormAlert } from "@/components/ui/form-alert";

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
      if (error instanceof ConsoleApiError && error.code === "wrong_password") setErrors({ currentPassword: error.message });
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

  const serverError =
    mutation.error && !(mutation.error instanceof ConsoleApiError && mutation.error.code === "wrong_password")
      ? mutation.error.message
      : undefined;

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Change password</CardTitle>
        <CardDescription>Other devices are signed out when the password changes.</CardDescription>
      </CardHeader>
      <form noValidate onSubmit={onSubmit} aria-busy={mutation.isPending || undefined}>
        <CardContent className="flex max-w-md flex-col gap-4">
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
          <Input
            label="New password"
            name="newPassword"
            type="password"
            autoComplete="new-password"
            required
            minLength={PASSWORD_MIN_LENGTH}
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
        </CardContent>
        <CardFooter>
          <Button type="submit" disabled={mutation.isPending}>
            {mutation.isPending ? "Changing password…" : "Change password"}
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
