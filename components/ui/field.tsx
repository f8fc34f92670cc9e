import type { ReactNode } from "react";
import { cx } from "./class-names";

/** A bare native control (select, date input) that looks like the Input component's field. */
export const controlClass =
  "h-10 w-full rounded-lg border border-border-strong bg-surface px-3 text-sm text-foreground shadow-sm focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring";

/** A visible label above one native control; `htmlFor` is the control's id. */
export function Field({ label, htmlFor, className, children }: { label: string; htmlFor: string; className?: string; children: ReactNode }) {
  return (
    <div className={cx("flex flex-col gap-1.5", className)}>
      <label htmlFor={htmlFor} className="text-sm font-medium">
        {label}
      </label>
      {children}
    </div>
  );
}
