"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState, type FormEvent } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { bindValue } from "@/components/ui/bind-value";
import { Input } from "@/components/ui/input";
import { createKey, keysQueryKey, refreshAfterKeyChange, type CapPeriod, type IssuedKey, type NewKeyInput } from "@/lib/query/keys";
import { controlClass, Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-alert";
import { errorMessage, formatCount, parseWholeNumber } from "./format";
import { KeyPolicyFieldset, policyFieldsOf, policyInput, type PolicyErrors, type PolicyFields } from "./key-policy-fields";
import { SubmitButton } from "@/components/ui/submit-button";

const MAX_CREDITS = 1_000_000_000;

type Fields = { name: string; credits: string; qpsLimit: string; expiresAt: string; useForConsole: boolean; capCredits: string; capPeriod: CapPeriod | "" };
type FieldErrors = Partial<Record<"name" | "credits" | "qpsLimit" | "expiresAt" | "capCredits", string>>;

/** A required whole number, with the number keyboard on phones. */
const wholeNumberInput = { required: true, type: "number", inputMode: "numeric", step: 1 } as const;

const emptyFields: Fields = { name: "", credits: "", qpsLimit: "5", expiresAt: "", useForConsole: false, capCredits: "", capPeriod: "" };

/** A team key's own cap: none, or credits per day, per month or in all (both fields, or neither). */
const capInput = (fields: Fields, errors: FieldErrors): { capCredits: number; capPeriod: CapPeriod } | null => {
  if (fields.capPeriod === "") {
    if (fields.capCredits.trim() !== "") errors.capCredits = "Choose per day, per month or in all — or leave the cap empty.";
    return null;
  }
  const capCredits = parseWholeNumber(fields.capCredits);
  if (capCredits === null || capCredits > MAX_CREDITS) {
    errors.capCredits = "Enter the cap as a whole number of credits.";
    return null;
  }
  return { capCredits, capPeriod: fields.capPeriod };
};

/** Mirrors the server's rules so most mistakes are explained before a request; the server still decides. */
const validate = (fields: Fields, allowance: number | null, workspaceId: string | undefined): { input: NewKeyInput | null; errors: FieldErrors } => {
  const errors: FieldErrors = {};
  const name = fields.name.trim();
  if (name.length === 0) errors.name = "Give the key a name.";
  else if (name.length > 100) errors.name = "Keep the name to 100 characters or fewer.";

  // A team key takes no credits of its own: it draws from the workspace's pool.
  const credits = workspaceId !== undefined ? 0 : parseWholeNumber(fields.credits);
  if (credits === null) errors.credits = "Enter a whole number of credits (0 or more).";
  else if (credits > MAX_CREDITS) errors.credits = `A key holds at most ${formatCount(MAX_CREDITS)} credits.`;
  else if (allowance !== null && credits > allowance)
    errors.credits = `That is more than your remaining allowance of ${formatCount(allowance)} credits.`;

  const qpsLimit = parseWholeNumber(fields.qpsLimit);
  if (qpsLimit === null || qpsLimit < 1 || qpsLimit > 1000) errors.qpsLimit = "Enter a whole number from 1 to 1000.";

  let expiresAt: string | null = null;
  if (fields.expiresAt !== "") {
    // datetime-local has no zone: it is the browser's local time.
    const expiry = new Date(fields.expiresAt);
    if (Number.isNaN(expiry.getTime())) errors.expiresAt = "Enter a valid date and time, or leave it empty.";
    else if (expiry.getTime() <= Date.now()) errors.expiresAt = "The expiry must be in the future.";
    else expiresAt = expiry.toISOString();
  }

  const cap = workspaceId !== undefined ? capInput(fields, errors) : null;

  if (Object.keys(errors).length > 0 || credits === null || qpsLimit === null) return { input: null, errors };
  const input: NewKeyInput = { name, credits, qpsLimit, expiresAt, useForConsole: fields.useForConsole };
  return { input: workspaceId !== undefined ? { ...input, workspaceId, ...cap } : input, errors };
};

export type CreateKeyFormProps = {
  /** Credits this user may still hand out; null when unlimited (admins) or not known yet. */
  allowance: number | null;
  allowanceText: string;
  onIssued: (issued: IssuedKey) => void;
  /** A team workspace: the key draws from its pool and may carry a cap of its own. */
  workspace?: { id: string; name: string };
};

export function CreateKeyForm({ allowance, allowanceText, onIssued, workspace }: CreateKeyFormProps) {
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<Fields>(emptyFields);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [policy, setPolicy] = useState<PolicyFields>(() => policyFieldsOf(null));
  const [policyErrors, setPolicyErrors] = useState<PolicyErrors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const consoleHintId = useId();
  const capPeriodId = useId();
  const headingId = useId();

  const mutation = useMutation({
    mutationKey: [...keysQueryKey, "create"],
    mutationFn: createKey,
    // The response holds the token: keep no copy in the mutation cache once it is handed over.
    gcTime: 0,
    onSettled: () => refreshAfterKeyChange(queryClient),
  });

  const set = <Name extends keyof Fields>(name: Name, value: Fields[Name]) =>
    setFields((current) => ({ ...current, [name]: value }));
  /** A text field's value, its setter and its message. */
  const field = (name: keyof FieldErrors) => ({ ...bindValue(fields[name], (value) => set(name, value)), error: errors[name] });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const { input, errors: found } = validate(fields, allowance, workspace?.id);
    const checkedPolicy = policyInput(policy);
    setErrors(found);
    setPolicyErrors(checkedPolicy.errors);
    if (!input || !checkedPolicy.input) {
      // The error messages render first; then the first invalid field takes focus.
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus());
      return;
    }
    mutation.mutate({ ...input, ...checkedPolicy.input }, {
      onSuccess: (issued) => {
        onIssued(issued);
        mutation.reset();
        setFields(emptyFields);
        setPolicy(policyFieldsOf(null));
      },
    });
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2" id={headingId}>
          Create a key
        </CardTitle>
        <CardDescription data-testid="allowance">
          {workspace ? `In ${workspace.name}: the key draws from the workspace's pool, within the cap you give it.` : allowanceText}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form
          ref={formRef}
          onSubmit={onSubmit}
          noValidate
          aria-labelledby={headingId}
          data-testid="new-key-form"
          className="grid gap-4 sm:grid-cols-2"
        >
          <Input
            label="Name"
            required
            maxLength={100}
            autoComplete="off"
            {...field("name")}
            hint="What it is for, e.g. “Nightly import”."
            className="sm:col-span-2"
            data-testid="new-key-name"
          />
          {workspace ? (
            <>
              <Input
                label="Cap (credits, optional)"
                type="number"
                inputMode="numeric"
                min={0}
                step={1}
                {...field("capCredits")}
                hint="The most this key may spend of the pool; empty for no cap of its own."
                data-testid="new-key-cap"
              />
              <Field label="Cap period" htmlFor={capPeriodId}>
                <select
                  id={capPeriodId}
                  className={controlClass}
                  value={fields.capPeriod}
                  onChange={(event) => set("capPeriod", event.target.value as Fields["capPeriod"])}
                  data-testid="new-key-cap-period"
                >
                  <option value="">No cap</option>
                  <option value="day">Per day (UTC)</option>
                  <option value="month">Per month (UTC)</option>
                  <option value="total">In all</option>
                </select>
              </Field>
            </>
          ) : (
            <Input
              label="Credits"
              {...wholeNumberInput}
              min={0}
              max={allowance ?? MAX_CREDITS}
              {...field("credits")}
              hint={allowance === null ? "Each lookup costs credits." : `Up to ${formatCount(allowance)}.`}
              data-testid="new-key-credits"
            />
          )}
          <Input
            label="Requests per second"
            {...wholeNumberInput}
            min={1}
            max={1000}
            {...field("qpsLimit")}
            hint="1 to 1000."
            data-testid="new-key-qps"
          />
          <Input
            label="Expires (optional)"
            type="datetime-local"
            {...field("expiresAt")}
            hint="Your local time. Leave empty for a key that does not expire."
            className="sm:col-span-2"
            data-testid="new-key-expiry"
          />
          <details className="sm:col-span-2" data-testid="new-key-limits">
            <summary className="cursor-pointer text-sm font-medium">Limits, refill and alerts</summary>
            <div className="mt-3 grid gap-4 sm:grid-cols-2">
              <KeyPolicyFieldset fields={policy} errors={policyErrors} onChange={setPolicy} testIdPrefix="new-key" />
            </div>
          </details>
          <div className="flex items-start gap-3 sm:col-span-2">
            <input
              id={`${consoleHintId}-input`}
              type="checkbox"
              checked={fields.useForConsole}
              onChange={(event) => set("useForConsole", event.target.checked)}
              aria-describedby={consoleHintId}
              data-testid="new-key-console"
              className="mt-0.5 size-4 shrink-0 accent-accent"
            />
            <div className="flex flex-col gap-0.5">
              <label htmlFor={`${consoleHintId}-input`} className="text-sm font-medium">
                Use this key for console lookups
              </label>
              <p id={consoleHintId} className="text-xs text-muted">
                The server keeps this key&apos;s token encrypted and spends its credits on the lookups you run in the
                console. It is never sent to your browser again.
              </p>
            </div>
          </div>
          <div className="flex flex-col gap-3 sm:col-span-2">
            <FormError message={mutation.isError ? errorMessage(mutation.error) : null} testId="create-key-error" />
            <div>
              <SubmitButton pending={mutation.isPending} pendingLabel="Creating…" data-testid="create-key">
                Create key
              </SubmitButton>
            </div>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
