import type { ReactNode } from "react";
import { cx } from "./class-names";

/**
 * One choice of a radio group drawn as a card: the radio, then what choosing it means
 * (`children`). The whole card is the radio's label, so a click anywhere on it picks it.
 */
export function RadioCard({
  name,
  value,
  checked,
  onChange,
  testId,
  children,
}: {
  name: string;
  value: string;
  checked: boolean;
  onChange: () => void;
  testId: string;
  children: ReactNode;
}) {
  return (
    <label
      className={cx(
        "flex cursor-pointer items-start gap-3 rounded-lg border p-3 transition-colors",
        checked ? "border-accent bg-accent-soft" : "border-border-strong hover:bg-surface-muted",
      )}
    >
      <input
        type="radio"
        name={name}
        value={value}
        checked={checked}
        onChange={onChange}
        data-testid={testId}
        className="mt-0.5 size-4 shrink-0 accent-accent"
      />
      {children}
    </label>
  );
}
