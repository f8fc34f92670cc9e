import { Input, WholeNumberInput, type InputProps } from "@/components/ui/input";
import { PASSWORD_MIN_LENGTH } from "@/lib/users/schemas";

type FieldProps = Omit<InputProps, "type" | "autoComplete" | "minLength" | "required">;

/** A password being set (a new account, a reset, a change): the browser may suggest one. */
export function NewPasswordInput({ hint, ...props }: FieldProps) {
  return (
    <Input
      type="password"
      autoComplete="new-password"
      required
      minLength={PASSWORD_MIN_LENGTH}
      hint={hint ?? `At least ${PASSWORD_MIN_LENGTH} characters.`}
      {...props}
    />
  );
}

/** An account's credit allowance: a whole number from 0. */
export function CreditAllowanceInput(props: Omit<FieldProps, "label" | "name" | "inputMode" | "min" | "step">) {
  return <WholeNumberInput label="Credit allowance" name="creditAllowance" min={0} required {...props} />;
}
