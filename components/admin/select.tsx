import { useId, type SelectHTMLAttributes } from "react";
import { cx } from "@/components/ui/class-names";

export type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, "id"> & { label: string; hint?: string };

/** A labelled native select, styled like components/ui/input. */
export function Select({ label, hint, className, children, ...props }: SelectProps) {
  const id = useId();
  return (
    <div className={cx("flex flex-col gap-1.5", className)}>
      <label htmlFor={id} className="text-sm font-medium text-foreground">
        {label}
      </label>
      <select
        id={id}
        aria-describedby={hint ? `${id}-hint` : undefined}
        className="h-10 w-full rounded-lg border border-border-strong bg-surface px-3 text-sm text-foreground shadow-sm focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring"
        {...props}
      >
        {children}
      </select>
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
