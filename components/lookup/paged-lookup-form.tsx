"use client";

import type { FormEvent } from "react";
import { OperationCost } from "@/components/credit-meter/operation-cost";
import { Button } from "@/components/ui/button";
import { Input, type InputProps } from "@/components/ui/input";
import type { UrlField } from "./use-url-field";

type FieldProps = Omit<InputProps, "value" | "onChange" | "onSubmit" | "autoComplete" | "spellCheck" | "className">;

/**
 * The head of a paged lookup view (followers, publications): the operation's cost, then one
 * field and Run. The field clears its own problem as soon as it is edited.
 */
export function PagedLookupForm({
  costCredits,
  onSubmit,
  looking,
  runTestId,
  field,
  ...inputProps
}: FieldProps & {
  costCredits: number;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  looking: boolean;
  runTestId: string;
  field: UrlField;
}) {
  return (
    <>
      <OperationCost credits={costCredits} />
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-3 rounded-xl border border-border bg-surface p-4 shadow-sm sm:flex-row sm:items-start sm:p-5">
        <Input
          {...inputProps}
          autoComplete="off"
          spellCheck={false}
          value={field.value}
          onChange={(event) => {
            field.setValue(event.target.value);
            if (field.problem) field.setProblem(null);
          }}
          className="flex-1"
        />
        <Button type="submit" data-testid={runTestId} className="sm:mt-7" disabled={looking}>
          {looking ? "Looking up…" : "Run"}
        </Button>
      </form>
    </>
  );
}
