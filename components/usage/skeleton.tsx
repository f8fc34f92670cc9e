import type { ReactNode } from "react";
import { cx } from "@/components/ui/class-names";

/** A grey placeholder block while data loads; hidden from assistive tech (a status line speaks instead). */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cx("animate-pulse rounded-lg bg-surface-muted", className)} />;
}

/** A dashed box for "nothing here (yet)". */
export function EmptyState({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <p
      data-testid={testId}
      className="rounded-xl border border-dashed border-border-strong px-4 py-8 text-center text-sm text-muted"
    >
      {children}
    </p>
  );
}
