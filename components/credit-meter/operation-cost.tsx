"use client";

import { createContext, useContext, useEffect, useState, type ReactNode } from "react";

/**
 * Lets the page tell the credit meter (rendered by the console layout, outside the page) what one
 * lookup on it costs. The setter and the value live in separate contexts so pages that only set
 * the cost do not re-render when it changes.
 */
type SetCost = (costCredits: number | undefined) => void;

const CostValueContext = createContext<number | undefined>(undefined);
const CostSetterContext = createContext<SetCost | null>(null);

/** Wraps the console shell (meter and page) so both see the same cost. */
export function OperationCostProvider({ children }: { children: ReactNode }) {
  const [costCredits, setCostCredits] = useState<number | undefined>(undefined);
  return (
    <CostSetterContext value={setCostCredits}>
      <CostValueContext value={costCredits}>{children}</CostValueContext>
    </CostSetterContext>
  );
}

/** Call in a page: `useOperationCost(4)`. The meter shows the cost while the page is mounted. */
export function useOperationCost(costCredits: number | undefined): void {
  const setCost = useContext(CostSetterContext);
  useEffect(() => {
    if (!setCost) return;
    setCost(costCredits);
    return () => setCost(undefined);
  }, [setCost, costCredits]);
}

/** The same from a server component page: `<OperationCost credits={4} />`. Renders nothing. */
export function OperationCost({ credits }: { credits: number | undefined }) {
  useOperationCost(credits);
  return null;
}

/** The cost the current page announced, or undefined. */
export const useCurrentOperationCost = (): number | undefined => useContext(CostValueContext);
