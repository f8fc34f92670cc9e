import { z } from "zod";
import { registry } from "@/lib/operations";
import { alertThresholdsField } from "@/lib/alerts/threshold-input";
import { checkOperations, normaliseAddressList } from "./access";

/**
 * What the console API (and the CLI, through the same functions) accepts for a key's policy:
 * operations, address allowlist, refill, alert thresholds. Entries are normalised here, so the
 * database only ever holds what the request path can compile.
 */
export const operationIds = (): string[] => registry.map((operation) => operation.id);

export const operationsField = z
  .array(z.string({ error: "Operations are operation ids." }).max(100), { error: "operations must be a list of operation ids, or null for all." })
  .max(100, "Too many operations.")
  .nullable()
  .transform((ids, context) => {
    if (ids === null) return null;
    const checked = checkOperations(ids, operationIds());
    if (checked.ok) return checked.operations;
    context.addIssue({ code: "custom", message: checked.message });
    return z.NEVER;
  });

export const allowedAddressesField = z
  .array(z.string({ error: "Addresses are text." }).max(100), { error: "allowedAddresses must be a list of addresses, or null for any." })
  .max(1000, "Too many addresses.")
  .nullable()
  .transform((entries, context) => {
    if (entries === null) return null;
    const normalised = normaliseAddressList(entries);
    if (normalised.ok) return normalised.entries;
    context.addIssue({ code: "custom", message: normalised.message });
    return z.NEVER;
  });

export const refillField = z
  .object({
    credits: z
      .int({ error: "Refill credits must be a whole number." })
      .min(1, "A refill gives at least 1 credit.")
      .max(1_000_000_000, "A refill gives at most 1,000,000,000 credits."),
    interval: z.enum(["daily", "monthly"], { error: "The refill interval is daily or monthly." }),
    dayOfMonth: z
      .int({ error: "The day of the month must be a whole number." })
      .min(1, "The day of the month is 1 to 31.")
      .max(31, "The day of the month is 1 to 31.")
      .nullish()
      .transform((value) => value ?? null),
    mode: z.enum(["top_up_to", "increase_by"], { error: "The refill mode is top_up_to or increase_by." }).default("top_up_to"),
  })
  .refine((refill) => refill.interval === "monthly" || refill.dayOfMonth === null, {
    message: "A day of the month only goes with a monthly refill.",
    path: ["dayOfMonth"],
  })
  .nullable();

/** Fields of a key's policy, each optional: omitted keeps what the key has. */
export const keyPolicyFields = {
  operations: operationsField.optional(),
  allowedAddresses: allowedAddressesField.optional(),
  refill: refillField.optional(),
  alertThresholds: alertThresholdsField.optional(),
};

export const keyPolicyBody = z.object(keyPolicyFields);

export type KeyPolicyPatch = z.infer<typeof keyPolicyBody>;

/** A key's own cap (docs/teams.md "Caps and budgets"): credits per day, per calendar month (UTC), or in all. */
export const keyCapFields = {
  capCredits: z
    .int({ error: "The cap must be a whole number of credits." })
    .min(0, "The cap cannot be negative.")
    .max(1_000_000_000, "The cap can be at most 1,000,000,000 credits.")
    .nullish(),
  capPeriod: z.enum(["day", "month", "total"], { error: "capPeriod is day, month or total." }).nullish(),
};

/** Both cap fields, or neither. */
export const capComplete = (value: { capCredits?: number | null; capPeriod?: string | null }, context: z.RefinementCtx): void => {
  if ((value.capCredits ?? null) === null && (value.capPeriod ?? null) === null) return;
  if ((value.capCredits ?? null) === null || (value.capPeriod ?? null) === null) {
    context.addIssue({ code: "custom", message: "Give both capCredits and capPeriod (day, month or total), or neither.", path: ["capCredits"] });
  }
};

export const capOf = (credits: number | null | undefined, period: "day" | "month" | "total" | null | undefined) =>
  credits === null || credits === undefined || period === null || period === undefined ? null : { credits, period };

export const keyCapBody = z.object(keyCapFields).superRefine(capComplete);
