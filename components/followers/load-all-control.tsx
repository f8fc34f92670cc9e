"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { isLookupError } from "@/lib/query/lookup-error";
import { meterQuery } from "@/lib/query/meter";
import { FOLLOWERS_PAGE_SIZE } from "@/lib/query/followers";
import { bindValue } from "@/components/ui/bind-value";

/** What asking for one more page came to. */
export type NextPageOutcome =
  | { kind: "loaded"; creditsCharged: number; hasNextPage: boolean }
  | { kind: "failed"; error: unknown }
  /** Nothing new arrived (the list ended, or another fetch answered for this one). */
  | { kind: "unchanged"; hasNextPage: boolean };

export type LoadAllControlProps = {
  hasNextPage: boolean;
  pageCostCredits: number;
  /** Fetches exactly the next page (never one already held) and reports how it went. */
  loadNextPage: () => Promise<NextPageOutcome>;
  /** While running, the list must not fetch on scroll: one driver at a time. */
  onRunningChange: (running: boolean) => void;
};

type StopReason = "end" | "budget" | "stopped" | "failed";

type RunState =
  | { phase: "idle" }
  | { phase: "running"; creditsSpent: number; pages: number; waitingS: number | null; stopping: boolean }
  | { phase: "done"; creditsSpent: number; pages: number; reason: StopReason };

const DEFAULT_BUDGET_CREDITS = "100";
const MAX_BUDGET_CREDITS = 1_000_000;
const numberFormat = new Intl.NumberFormat("en-US");

const parseBudget = (raw: string, pageCostCredits: number): { credits: number } | { problem: string } => {
  const text = raw.trim();
  if (!/^\d{1,7}$/.test(text)) return { problem: "Enter a whole number of credits." };
  const credits = Number(text);
  if (credits < pageCostCredits) return { problem: `At least ${pageCostCredits} credits: one page costs ${pageCostCredits}.` };
  if (credits > MAX_BUDGET_CREDITS) return { problem: `At most ${numberFormat.format(MAX_BUDGET_CREDITS)} credits per run.` };
  return { credits };
};

/** Waits `ms`, or less if `shouldStop` turns true (checked every 100 ms). */
const pause = (ms: number, shouldStop: () => boolean) =>
  new Promise<void>((resolve) => {
    const until = Date.now() + ms;
    const tick = () => (shouldStop() || Date.now() >= until ? resolve() : window.setTimeout(tick, 100));
    tick();
  });

const stopText: Record<StopReason, string> = {
  end: "Reached the end of the list.",
  budget: "Stopped at the budget.",
  stopped: "Stopped.",
  failed: "Stopped by an error (see above).",
};

/**
 * "Load all, up to N credits": fetches the next pages one after another until the list ends,
 * the budget would be exceeded, Stop is pressed, or a page fails. A 429 is waited out
 * (Retry-After) and the run goes on; it cost nothing.
 */
export function LoadAllControl({ hasNextPage, pageCostCredits, loadNextPage, onRunningChange }: LoadAllControlProps) {
  const [budgetText, setBudgetText] = useState(DEFAULT_BUDGET_CREDITS);
  const [run, setRun] = useState<RunState>({ phase: "idle" });
  const stopRequested = useRef(false);
  const mounted = useRef(true);
  const previewId = useId();
  const meter = useQuery(meterQuery());
  const creditsRemaining = meter.data?.key?.creditsSpendable;

  useEffect(() => {
    mounted.current = true;
    return () => {
      // Leaving the page ends the run after the page in flight.
      mounted.current = false;
      stopRequested.current = true;
    };
  }, []);

  const budget = parseBudget(budgetText, pageCostCredits);
  const running = run.phase === "running";
  const maxPages = "credits" in budget ? Math.floor(budget.credits / pageCostCredits) : 0;

  const start = async () => {
    if (!("credits" in budget) || running || !hasNextPage) return;
    const budgetCredits = budget.credits;
    stopRequested.current = false;
    let creditsSpent = 0;
    let pages = 0;
    let more: boolean = hasNextPage;
    let reason: StopReason = "end";
    setRun({ phase: "running", creditsSpent, pages, waitingS: null, stopping: false });
    onRunningChange(true);
    try {
      for (;;) {
        if (stopRequested.current) {
          reason = "stopped";
          break;
        }
        if (!more) {
          reason = "end";
          break;
        }
        if (creditsSpent + pageCostCredits > budgetCredits) {
          reason = "budget";
          break;
        }
        const outcome = await loadNextPage();
        if (!mounted.current) return;
        if (outcome.kind === "failed") {
          if (isLookupError(outcome.error) && outcome.error.code === "rate_limited") {
            const waitS = outcome.error.retryAfterS ?? 1;
            setRun({ phase: "running", creditsSpent, pages, waitingS: waitS, stopping: stopRequested.current });
            await pause(waitS * 1000, () => stopRequested.current);
            if (!mounted.current) return;
            setRun({ phase: "running", creditsSpent, pages, waitingS: null, stopping: stopRequested.current });
            continue;
          }
          reason = "failed";
          break;
        }
        if (outcome.kind === "unchanged") {
          reason = outcome.hasNextPage ? "stopped" : "end";
          break;
        }
        creditsSpent += outcome.creditsCharged;
        pages += 1;
        more = outcome.hasNextPage;
        setRun({ phase: "running", creditsSpent, pages, waitingS: null, stopping: stopRequested.current });
      }
    } finally {
      if (mounted.current) onRunningChange(false);
    }
    setRun({ phase: "done", creditsSpent, pages, reason });
  };

  const stop = () => {
    stopRequested.current = true;
    setRun((current) => (current.phase === "running" ? { ...current, stopping: true } : current));
  };

  return (
    <section aria-labelledby={`${previewId}-title`} className="flex flex-col gap-3 rounded-xl border border-border bg-surface p-4 shadow-sm">
      <div className="flex flex-col gap-0.5">
        <h2 id={`${previewId}-title`} className="text-sm font-semibold">
          Load all, up to a budget
        </h2>
        <p className="text-xs text-muted">
          The API does not say how many followers a user has, so the total cost is unknown in advance. The run fetches one page
          of {FOLLOWERS_PAGE_SIZE} after another and stops at the end of the list, at the budget, or when you press Stop.
        </p>
      </div>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <Input
          label="Budget (credits)"
          inputMode="numeric"
          autoComplete="off"
          data-testid="load-all-budget"
          {...bindValue(budgetText, setBudgetText)}
          disabled={running}
          error={"problem" in budget ? budget.problem : undefined}
          className="sm:w-44"
        />
        <div className="flex gap-2 sm:pt-7">
          <Button
            data-testid="load-all-start"
            onClick={() => void start()}
            disabled={running || !hasNextPage || !("credits" in budget)}
          >
            {"credits" in budget ? `Load all, up to ${numberFormat.format(budget.credits)} credits` : "Load all"}
          </Button>
          <Button variant="secondary" data-testid="load-all-stop" onClick={stop} disabled={!running || run.stopping}>
            Stop
          </Button>
        </div>
      </div>
      <p className="text-sm text-muted" data-testid="load-all-preview">
        {!hasNextPage
          ? "The whole list is loaded: nothing more to fetch."
          : "credits" in budget
            ? `≈ ${numberFormat.format(maxPages)} more ${maxPages === 1 ? "page" : "pages"} (up to ${numberFormat.format(maxPages * FOLLOWERS_PAGE_SIZE)} followers), up to ${numberFormat.format(maxPages * pageCostCredits)} credits — fewer if the list ends first.`
            : "Enter a budget to see what it buys."}
        {hasNextPage && "credits" in budget && creditsRemaining !== undefined && budget.credits > creditsRemaining
          ? ` Only ${numberFormat.format(creditsRemaining)} credits can be spent now; the run stops when they run out.`
          : null}
      </p>
      <p role="status" aria-live="polite" className="text-sm font-medium" data-testid="load-all-status">
        {run.phase === "running"
          ? run.waitingS !== null
            ? `Rate limited — going on in ${run.waitingS} s… (${run.pages} pages, ${run.creditsSpent} credits so far)`
            : run.stopping
              ? `Stopping after the page in flight… (${run.pages} pages, ${run.creditsSpent} credits)`
              : `Loading… ${run.pages} pages, ${run.creditsSpent} credits so far`
          : run.phase === "done"
            ? `${stopText[run.reason]} This run: ${run.pages} ${run.pages === 1 ? "page" : "pages"}, ${run.creditsSpent} credits.`
            : ""}
      </p>
    </section>
  );
}
