"use client";

import type { FormEvent } from "react";
import { OperationCost } from "@/components/credit-meter/operation-cost";
import { bindValue } from "@/components/ui/bind-value";
import { Button } from "@/components/ui/button";
import { Input, type InputProps } from "@/components/ui/input";
import { lookupErrorText, type LookupSubject } from "@/lib/query/lookup-copy";
import { isLookupError } from "@/lib/query/lookup-error";
import type { UrlField } from "./use-url-field";

type FieldProps = Omit<InputProps, "value" | "onChange" | "onSubmit" | "autoComplete" | "spellCheck" | "className" | "error" | "name">;

/**
 * The head of a paged lookup view (followers, publications): the operation's cost, then one
 * field and Run. The field clears its own problem as soon as it is edited. Under it stands the
 * field's own problem, else the lookup's error when the API blamed this field (`name`).
 * `testId` names the parts for the browser tests: `<testId>-input`, `<testId>-run`.
 */
export type PagedLookupFormProps = FieldProps & {
  costCredits: number;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  looking: boolean;
  testId: string;
  field: UrlField;
  name: string;
  lookupError: unknown;
  subject: LookupSubject;
};

export function PagedLookupForm({
  costCredits,
  onSubmit,
  looking,
  testId,
  field,
  name,
  lookupError,
  subject,
  ...inputProps
}: PagedLookupFormProps) {
  const lookupProblem = isLookupError(lookupError) && lookupError.field === name ? lookupErrorText(lookupError, subject) : undefined;
  return (
    <>
      <OperationCost credits={costCredits} />
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-3 rounded-xl border border-border bg-surface p-4 shadow-sm sm:flex-row sm:items-start sm:p-5">
        <Input
          {...inputProps}
          name={name}
          data-testid={`${testId}-input`}
          error={field.problem ?? lookupProblem}
          autoComplete="off"
          spellCheck={false}
          {...bindValue(field.value, field.setValue, () => {
            if (field.problem) field.setProblem(null);
          })}
          className="flex-1"
        />
        <Button type="submit" data-testid={`${testId}-run`} className="sm:mt-7" disabled={looking}>
          {looking ? "Looking up…" : "Run"}
        </Button>
      </form>
    </>
  );
}
