"use client";

import { useId } from "react";
import { bindValue } from "@/components/ui/bind-value";
import { Input, WholeNumberInput } from "@/components/ui/input";
import { operationDescriptors } from "@/lib/operations/descriptors";
import type { ApiKeyView, KeyPolicyInput } from "@/lib/query/keys";
import { formatCount, formatDateTime, parseWholeNumber } from "./format";

/**
 * What a key may call, from where, how it is refilled and when it alerts (docs/api.md "Keys"): the same
 * fields when a key is created and when it is edited. The server normalises and decides (a bad
 * CIDR range comes back with its sentence); the checks here only catch what is plainly not a number.
 */
export type PolicyFields = {
  allOperations: boolean;
  operations: string[];
  /** One address or CIDR range per line (commas work too); empty: any address. */
  addresses: string;
  refillInterval: "none" | "daily" | "monthly";
  refillCredits: string;
  refillDay: string;
  refillMode: "top_up_to" | "increase_by";
  /** "500, 20%": credits or percent of the credits granted. */
  thresholds: string;
};

export type PolicyErrors = Partial<Record<"operations" | "refillCredits" | "refillDay" | "thresholds", string>>;

export const policyFieldsOf = (key: ApiKeyView | null): PolicyFields => ({
  allOperations: key?.operations == null,
  operations: key?.operations ?? operationDescriptors.map((operation) => operation.id),
  addresses: (key?.allowedAddresses ?? []).join("\n"),
  refillInterval: key?.refill?.interval ?? "none",
  refillCredits: key?.refill ? String(key.refill.credits) : "",
  refillDay: key?.refill?.dayOfMonth ? String(key.refill.dayOfMonth) : "1",
  refillMode: key?.refill?.mode ?? "top_up_to",
  thresholds: (key?.alertThresholds ?? []).map((threshold) => ("credits" in threshold ? String(threshold.credits) : `${threshold.percent}%`)).join(", "),
});

const splitList = (text: string): string[] => text.split(/[\s,]+/).filter((entry) => entry !== "");

export const policyInput = (fields: PolicyFields): { input: KeyPolicyInput | null; errors: PolicyErrors } => {
  const errors: PolicyErrors = {};
  if (!fields.allOperations && fields.operations.length === 0) errors.operations = "Choose at least one operation, or allow them all.";
  const addresses = splitList(fields.addresses);
  let refill: KeyPolicyInput["refill"] = null;
  if (fields.refillInterval !== "none") {
    const credits = parseWholeNumber(fields.refillCredits);
    const day = fields.refillInterval === "monthly" ? parseWholeNumber(fields.refillDay) : null;
    if (credits === null || credits < 1) errors.refillCredits = "Enter a whole number of credits (1 or more).";
    if (fields.refillInterval === "monthly" && (day === null || day < 1 || day > 31)) errors.refillDay = "Enter a day from 1 to 31.";
    if (credits !== null) refill = { credits, interval: fields.refillInterval, dayOfMonth: day, mode: fields.refillMode };
  }
  const thresholds: KeyPolicyInput["alertThresholds"] = [];
  for (const entry of splitList(fields.thresholds)) {
    const percent = /^(\d+)%$/.exec(entry);
    const value = parseWholeNumber(percent ? (percent[1] ?? "") : entry);
    if (value === null) {
      errors.thresholds = `“${entry}” is not a threshold: write credits (500) or a percentage (20%).`;
      break;
    }
    thresholds.push(percent ? { percent: value } : { credits: value });
  }
  if (Object.keys(errors).length > 0) return { input: null, errors };
  return {
    input: {
      operations: fields.allOperations ? null : fields.operations,
      allowedAddresses: addresses.length === 0 ? null : addresses,
      refill,
      alertThresholds: thresholds,
    },
    errors,
  };
};

/** One line about a key's refill, as the keys table and the forecast say it. */
export const describeRefill = (key: Pick<ApiKeyView, "refill" | "nextRefillAt" | "refillStopped">): string => {
  if (!key.refill) return "None";
  const how = key.refill.mode === "top_up_to" ? `Top up to ${formatCount(key.refill.credits)}` : `Add ${formatCount(key.refill.credits)}`;
  const when = key.refill.interval === "daily" ? "daily" : `monthly on day ${key.refill.dayOfMonth ?? 1}`;
  return key.refillStopped ? `${how} ${when}; stopped` : `${how} ${when}; next ${formatDateTime(key.nextRefillAt)}`;
};

/**
 * Why a key's refill stopped (its payer's allowance could not pay a period's credits), in the
 * words of whoever reads it; null while the refill runs.
 */
export const describeRefillStop = (key: Pick<ApiKeyView, "refillStopped" | "refillPayerId">, viewerId: string): string | null => {
  if (!key.refillStopped) return null;
  const whose = key.refillPayerId === viewerId ? "your allowance" : "its payer's allowance";
  return (
    `Refill stopped on ${formatDateTime(key.refillStopped.at)}: ${whose} could not pay ` +
    `${formatCount(key.refillStopped.credits)} credits. Set the refill again under Limits once the allowance holds it.`
  );
};

const checkboxClass = "mt-0.5 size-4 shrink-0 accent-accent";

export function KeyPolicyFieldset({
  fields,
  errors,
  onChange,
  testIdPrefix,
}: {
  fields: PolicyFields;
  errors: PolicyErrors;
  onChange: (fields: PolicyFields) => void;
  testIdPrefix: string;
}) {
  const id = useId();
  const set = <Name extends keyof PolicyFields>(name: Name, value: PolicyFields[Name]) => onChange({ ...fields, [name]: value });
  const toggle = (operationId: string, checked: boolean) =>
    set("operations", checked ? [...fields.operations, operationId] : fields.operations.filter((chosen) => chosen !== operationId));

  return (
    <div className="grid gap-4 sm:col-span-2 sm:grid-cols-2">
      <fieldset className="flex flex-col gap-2 sm:col-span-2" aria-describedby={`${id}-ops-error`}>
        <legend className="mb-1 text-sm font-medium">Operations this key may call</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className={checkboxClass}
            checked={fields.allOperations}
            onChange={(event) => set("allOperations", event.target.checked)}
            data-testid={`${testIdPrefix}-all-operations`}
          />
          All operations, including ones added later
        </label>
        {fields.allOperations ? null : (
          <div className="grid gap-1.5 pl-6 sm:grid-cols-2">
            {operationDescriptors.map((operation) => (
              <label key={operation.id} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className={checkboxClass}
                  checked={fields.operations.includes(operation.id)}
                  onChange={(event) => toggle(operation.id, event.target.checked)}
                  data-testid={`${testIdPrefix}-operation-${operation.id}`}
                />
                {operation.label.short} <span className="text-xs text-muted">({operation.label.site})</span>
              </label>
            ))}
          </div>
        )}
        <p id={`${id}-ops-error`} role="alert" className="text-xs text-danger empty:hidden">
          {errors.operations}
        </p>
      </fieldset>

      <div className="flex flex-col gap-1 sm:col-span-2">
        <label htmlFor={`${id}-addresses`} className="text-sm font-medium">
          Allowed client addresses (optional)
        </label>
        <textarea
          id={`${id}-addresses`}
          rows={3}
          value={fields.addresses}
          onChange={(event) => set("addresses", event.target.value)}
          placeholder={"203.0.113.0/24\n2001:db8::/32"}
          aria-describedby={`${id}-addresses-hint`}
          data-testid={`${testIdPrefix}-addresses`}
          className="rounded-lg border border-border-strong bg-surface px-3 py-2 font-mono text-sm"
        />
        <p id={`${id}-addresses-hint`} className="text-xs text-muted">
          IPv4 or IPv6 addresses and CIDR ranges, one per line. Empty: any address.
        </p>
      </div>

      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-refill`} className="text-sm font-medium">
          Automatic refill
        </label>
        <select
          id={`${id}-refill`}
          value={fields.refillInterval}
          onChange={(event) => set("refillInterval", event.target.value as PolicyFields["refillInterval"])}
          data-testid={`${testIdPrefix}-refill-interval`}
          className="rounded-lg border border-border-strong bg-surface px-3 py-2 text-sm"
        >
          <option value="none">None</option>
          <option value="daily">Daily (00:00 UTC)</option>
          <option value="monthly">Monthly</option>
        </select>
      </div>
      {fields.refillInterval === "none" ? null : (
        <>
          <WholeNumberInput
            label="Refill credits"
            min={1}
            {...bindValue(fields.refillCredits, (value) => set("refillCredits", value))}
            error={errors.refillCredits}
            hint="An analyst's refill is paid from their credit allowance, each time it adds credits, and must fit in it; an administrator's is granted."
            data-testid={`${testIdPrefix}-refill-credits`}
          />
          <fieldset className="flex flex-col gap-1.5">
            <legend className="mb-1 text-sm font-medium">At each refill</legend>
            {(
              [
                ["top_up_to", "Top the balance up to this amount"],
                ["increase_by", "Add this amount to the balance"],
              ] as const
            ).map(([mode, label]) => (
              <label key={mode} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name={`${id}-refill-mode`}
                  className={checkboxClass}
                  checked={fields.refillMode === mode}
                  onChange={() => set("refillMode", mode)}
                  data-testid={`${testIdPrefix}-refill-${mode}`}
                />
                {label}
              </label>
            ))}
          </fieldset>
          {fields.refillInterval === "monthly" ? (
            <WholeNumberInput
              label="Day of the month (UTC)"
              min={1}
              max={31}
              {...bindValue(fields.refillDay, (value) => set("refillDay", value))}
              error={errors.refillDay}
              hint="A shorter month refills on its last day."
              data-testid={`${testIdPrefix}-refill-day`}
            />
          ) : null}
        </>
      )}

      <Input
        label="Alert thresholds (optional)"
        {...bindValue(fields.thresholds, (value) => set("thresholds", value))}
        error={errors.thresholds}
        hint="Credits or percentages of the credits granted, e.g. 500, 20%. Each alerts once per crossing."
        className="sm:col-span-2"
        data-testid={`${testIdPrefix}-thresholds`}
      />
    </div>
  );
}
