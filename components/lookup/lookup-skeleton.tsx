import type { ReactNode } from "react";
import { cx } from "@/components/ui/class-names";

/**
 * What a paged lookup shows while its first page loads: an announced status, the heading and
 * toolbar in grey, then the result's own placeholder — the same box as the result, so nothing
 * moves when it arrives.
 */
export function LookupSkeleton({
  loadingText,
  headingWidth,
  toolbarHeight,
  children,
}: {
  loadingText: string;
  headingWidth: string;
  toolbarHeight: string;
  children: ReactNode;
}) {
  return (
    <div aria-busy="true" className="flex flex-col gap-3">
      <span className="sr-only" role="status">
        {loadingText}
      </span>
      <div className={cx("h-7 animate-pulse rounded-md bg-surface-muted", headingWidth)} />
      <div className={cx("animate-pulse rounded-xl bg-surface-muted", toolbarHeight)} />
      {children}
    </div>
  );
}
