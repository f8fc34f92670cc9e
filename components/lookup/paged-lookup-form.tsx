"use client";

import type { FormEvent } from "react";
import { OperationCost } from "@/components/credit-meter/operation-cost";
import { Button } from "@/components/ui/button";
import { Input, type InputProps } from "@/components/ui/input";

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
  value,
  onValueChange,
  inputProblem,
  onClearProblem,
  ...field
}: FieldProps & {
  costCredits: number;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  looking: boolean;
  runTestId: string;
  value: string;
  onValueChange: (value: string) => void;
  inputProblem: string | null;
  onClearProblem: () => void;
}) {
  return (
    <>
      <OperationCost credits={costCredits} />
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-3 rounded-xl border border-border bg-surface p-4 shadow-sm sm:flex-row sm:items-start sm:p-5">
        <Input
          {...field}
          autoComplete="off"
          spellCheck={false}
          value={value}
          onChange={(event) => {
            onValueChange(event.target.value);
            if (inputProblem) onClearProblem();
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
