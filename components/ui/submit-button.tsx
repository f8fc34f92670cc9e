import { Button, type ButtonProps } from "./button";

/**
 * A form's submit button while its request runs: disabled, and saying what is happening
 * (`pendingLabel`) instead of what it will do (`children`).
 */
export function SubmitButton({
  pending,
  pendingLabel,
  children,
  disabled,
  ...props
}: Omit<ButtonProps, "type"> & { pending: boolean; pendingLabel: string }) {
  return (
    <Button type="submit" disabled={pending || disabled} {...props}>
      {pending ? pendingLabel : children}
    </Button>
  );
}
