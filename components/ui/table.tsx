import type { HTMLAttributes, TdHTMLAttributes, ThHTMLAttributes } from "react";
import { cx } from "./class-names";

export type TableProps = HTMLAttributes<HTMLTableElement> & {
  /** Accessible name of the table; visually hidden unless `showCaption`. */
  caption?: string;
  showCaption?: boolean;
  /**
   * A table wide enough to scroll sideways (long details): its frame becomes a named region
   * that takes the keyboard focus, so it can be scrolled without a mouse.
   */
  scrollable?: boolean;
};

/** A table inside a horizontally scrollable frame, so narrow screens never overflow the page. */
export function Table({ caption, showCaption = false, scrollable = false, className, children, ...props }: TableProps) {
  const region = scrollable ? { tabIndex: 0, role: "region", "aria-label": caption } : {};
  return (
    <div
      className="w-full overflow-x-auto rounded-xl border border-border bg-surface focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
      {...region}
    >
      <table className={cx("w-full border-collapse text-left text-sm", className)} {...props}>
        {caption ? (
          <caption className={showCaption ? "px-4 py-3 text-left text-sm font-medium text-muted" : "sr-only"}>
            {caption}
          </caption>
        ) : null}
        {children}
      </table>
    </div>
  );
}

export function TableHead({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return <thead className={cx("bg-surface-muted", className)} {...props} />;
}

export function TableBody({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return <tbody className={cx("divide-y divide-border", className)} {...props} />;
}

export function TableRow({ className, ...props }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={cx("align-top", className)} {...props} />;
}

/** A header column: its label, or the label with cell classes (alignment) or only for screen readers. */
export type TableColumn = string | { label: string; className?: string; visuallyHidden?: boolean };

/** The table's head: one header cell per column, in order; `className` is the head's (e.g. hidden on phones). */
export function TableHeaderRow({ columns, className }: { columns: readonly TableColumn[]; className?: string }) {
  return (
    <TableHead className={className}>
      <tr>
        {columns.map((column) => {
          const { label, className, visuallyHidden } = typeof column === "string" ? { label: column } : column;
          return (
            <TableHeaderCell key={label} className={className}>
              {visuallyHidden ? <span className="sr-only">{label}</span> : label}
            </TableHeaderCell>
          );
        })}
      </tr>
    </TableHead>
  );
}

export function TableHeaderCell({ className, scope = "col", ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope={scope}
      className={cx(
        "border-b border-border px-4 py-2.5 text-xs font-semibold tracking-wide whitespace-nowrap text-muted uppercase",
        className,
      )}
      {...props}
    />
  );
}

export function TableCell({ className, ...props }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cx("px-4 py-3 text-foreground", className)} {...props} />;
}
