"use client";

import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";

const creditsText = (credits: number) => `${credits} ${credits === 1 ? "credit" : "credits"}`;

/**
 * What a link (or a reload) would look up, shown instead of running it: opening an address never
 * spends credits by itself. `what` names the lookup; Run buys it at `costCredits`.
 */
export function NotRunPanel({ what, costCredits, onRun, testId }: { what: ReactNode; costCredits: number; onRun: () => void; testId: string }) {
  return (
    <div
      className="flex flex-col items-start gap-3 rounded-xl border border-dashed border-border-strong p-5 text-sm sm:flex-row sm:items-center sm:justify-between"
      data-testid={testId}
    >
      <p className="min-w-0 text-muted [overflow-wrap:anywhere]">
        {what} is not loaded in this session. Running it costs {creditsText(costCredits)}.
      </p>
      <Button onClick={onRun} data-testid={`${testId}-run`} className="shrink-0">
        Run — {creditsText(costCredits)}
      </Button>
    </div>
  );
}
