import { Suspense, type ReactNode } from "react";

/** useSearchParams needs a boundary; the fallback keeps the lookup form's place. */
export function SearchParamsBoundary({ children }: { children: ReactNode }) {
  return <Suspense fallback={<div className="h-[7.5rem] animate-pulse rounded-xl bg-surface-muted" />}>{children}</Suspense>;
}
