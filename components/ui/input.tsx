import { useId, type InputHTMLAttributes } from "react";
import { cx } from "./class-names";

export type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & {
  /** Visible label; every input has one. */
  label: string;
  id?: string;
  /** Help text under the field, announced with it. */
  hint?: string;
  /** Validation message; marks the field invalid. */
  error?: string;
};

/** For text taken exactly as typed (keys, URLs, ids): no autofill, capitalisation or spell check. */
/** A file input that looks like the console's other controls: its button styled as a secondary button. */
export const fileInputClass =
  "text-sm text-muted file:mr-3 file:h-9 file:cursor-pointer file:rounded-lg file:border file:border-solid file:border-border-strong file:bg-surface file:px-3 file:text-sm file:font-medium file:text-foreground file:shadow-sm hover:file:bg-surface-muted";

export const verbatimText = { autoComplete: "off", autoCapitalize: "off", spellCheck: false } as const;

export function Input({ label, id, hint, error, className, required, ...props }: InputProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = error ? `${inputId}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;

  return (
    <div className={cx("flex flex-col gap-1.5", className)}>
      <label htmlFor={inputId} className="text-sm font-medium text-foreground">
        {label}
        {required ? (
          <span className="ml-0.5 text-danger" aria-hidden="true">
            *
          </span>
        ) : null}
      </label>
      <input
        id={inputId}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={cx(
          "h-10 w-full rounded-lg border bg-surface px-3 text-sm text-foreground shadow-sm",
          "placeholder:text-muted/70 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring",
          "disabled:cursor-not-allowed disabled:opacity-60",
          error ? "border-danger" : "border-border-strong",
        )}
        {...props}
      />
      {hint ? (
        <p id={hintId} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="text-xs font-medium text-danger">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A whole number, typed on the numeric keypad where there is one; `min` and `max` bound it. */
export function WholeNumberInput({ min, max, ...props }: Omit<InputProps, "type" | "inputMode" | "step">) {
  return <Input type="number" inputMode="numeric" min={min} max={max} step={1} {...props} />;
}
