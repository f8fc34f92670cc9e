import { z } from "zod";

/**
 * Request bodies of the account and user-admin routes of the console API. Shared by the route
 * handlers (authoritative) and the browser forms (early hints), so both speak the same
 * messages. No Node imports here: the browser bundles this file.
 */

// Mirrors MIN_PASSWORD_LENGTH / MAX_PASSWORD_LENGTH of lib/users/passwords.ts, which uses
// node:crypto and cannot be bundled for the browser.
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;
export const MAX_CREDIT_ALLOWANCE = 1_000_000_000;

export const newPasswordField = z
  .string({ error: "is required" })
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

export const creditAllowanceField = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(0, "must be 0 or more")
  .max(MAX_CREDIT_ALLOWANCE, `must be at most ${MAX_CREDIT_ALLOWANCE.toLocaleString("en-US")}`);

export const emailField = z
  .string({ error: "is required" })
  .trim()
  .toLowerCase()
  .max(320, "is too long")
  .pipe(z.email("must be a valid email address"));

export const roleField = z.enum(["admin", "analyst"], { error: 'must be "admin" or "analyst"' });

export const passwordChangeBody = z.strictObject({
  currentPassword: z.string({ error: "is required" }).min(1, "is required").max(PASSWORD_MAX_LENGTH, "is too long"),
  newPassword: newPasswordField,
});
export type PasswordChangeInput = z.infer<typeof passwordChangeBody>;

export const userCreateBody = z.strictObject({
  email: emailField,
  name: z.string({ error: "is required" }).trim().min(1, "is required").max(100, "must be at most 100 characters"),
  role: roleField,
  password: newPasswordField,
  creditAllowance: creditAllowanceField,
});
export type UserCreateInput = z.infer<typeof userCreateBody>;

export const userPatchBody = z
  .strictObject({
    status: z.enum(["active", "disabled"], { error: 'must be "active" or "disabled"' }).optional(),
    password: newPasswordField.optional(),
    creditAllowance: creditAllowanceField.optional(),
  })
  .refine((patch) => patch.status !== undefined || patch.password !== undefined || patch.creditAllowance !== undefined, {
    message: "change at least one of status, password, creditAllowance",
  });
export type UserPatchInput = z.infer<typeof userPatchBody>;

/** The first problem of a form's values, per field, worded like the server's messages. */
export const fieldErrors = (error: z.ZodError): Record<string, string> => {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.join(".") || "form";
    errors[field] ??= issue.message;
  }
  return errors;
};
