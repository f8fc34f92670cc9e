import type { ReactNode } from "react";
import { cx } from "./class-names";

/**
 * One choice of a radio group drawn as a card: the radio, then what choosing it means
 * (`children`, stacked lines). The whole card is the radio's label, so a click anywhere on it picks it.
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
      <span className="flex min-w-0 flex-col gap-0.5">{children}</span>
    </label>
  );
}

/**
 * A radio group of cards: a fieldset named by its legend, one RadioCard per option, then
 * `children` (a note under the choices). `testId` names each option's radio for the browser tests.
 */
export function RadioCardGroup<Option, Value extends string>({
  legend,
  legendClassName,
  name,
  options,
  valueOf,
  selected,
  onSelect,
  testId,
  describe,
  children,
}: {
  legend: ReactNode;
  legendClassName: string;
  name: string;
  options: readonly Option[];
  valueOf: (option: Option) => Value;
  selected: Value | null;
  onSelect: (value: Value) => void;
  testId: (value: Value) => string;
  describe: (option: Option) => ReactNode;
  children?: ReactNode;
}) {
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className={legendClassName}>{legend}</legend>
      {options.map((option) => {
        const value = valueOf(option);
        return (
          <RadioCard
            key={value}
            name={name}
            value={value}
            checked={value === selected}
            onChange={() => onSelect(value)}
            testId={testId(value)}
          >
            {describe(option)}
          </RadioCard>
        );
      })}
      {children}
    </fieldset>
  );
}
