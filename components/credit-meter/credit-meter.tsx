"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { Meter, type MeterVariant } from "@/components/ui/meter";
import { lastLookupQuery, type LastLookup } from "@/lib/query/last-lookup";
import { creditLevel, creditsPercent, meterQuery, type CreditLevel, type MeterBudget, type MeterKey, type MeterPool } from "@/lib/query/meter";
import { useCurrentOperationCost } from "./operation-cost";

/**
 * The credit meter on every console page: the console key's credits remaining / granted, what a
 * lookup on this page costs, and what the last lookup charged. Lookups patch its query from
 * their X-Credits-Remaining header (lib/query/fetch-lookup.ts), so it moves without a reload.
 */
export type CreditMeterProps = {
  /** The cost of one lookup on this page; defaults to what the page set with useOperationCost. */
  costCredits?: number;
  /** One line for a narrow screen's top bar: credits left and a thin bar, linking to Keys. */
  compact?: boolean;
  className?: string;
};

const numberFormat = new Intl.NumberFormat("en-US");
const formatCredits = (credits: number) => `${numberFormat.format(credits)} ${credits === 1 ? "credit" : "credits"}`;

const variants: Record<CreditLevel, MeterVariant> = { ok: "normal", low: "amber", critical: "red" };

const linkClass = "font-medium text-accent underline-offset-2 hover:underline";

function LastLookupLine({ lastLookup }: { lastLookup: LastLookup | null | undefined }) {
  // Always rendered, so screen readers hear each new charge and the meter keeps its height.
  return (
    <p role="status" className="min-h-4 text-xs text-muted" data-testid="credit-meter-last">
      {!lastLookup ? null : lastLookup.creditsCharged > 0 ? (
        <>
          Last lookup: <span className="font-medium text-foreground tabular-nums">−{formatCredits(lastLookup.creditsCharged)}</span>
        </>
      ) : (
        <>Last lookup failed — nothing charged.</>
      )}
    </p>
  );
}

/**
 * In a team workspace: whose pool the console draws from, and the member's own budget this month.
 * Neither says "left": the one figure left is the meter's (what can really be spent now).
 */
function PoolLines({ pool, budget }: { pool: MeterPool; budget: MeterBudget | null }) {
  return (
    <div className="flex flex-col gap-0.5 text-xs text-muted" data-testid="credit-meter-pool" data-pool-credits={pool.poolCredits}>
      <p>
        Pool of <span className="font-medium text-foreground [overflow-wrap:anywhere]">{pool.name}</span>:{" "}
        <span className="font-medium text-foreground tabular-nums">{formatCredits(pool.poolCredits)}</span> in it
      </p>
      {budget ? (
        <p data-testid="credit-meter-budget" data-budget-left={budget.leftCredits}>
          Your budget this month: <span className="font-medium text-foreground tabular-nums">{numberFormat.format(budget.spentCredits)}</span> of{" "}
          {numberFormat.format(budget.monthlyCredits)} spent
        </p>
      ) : (
        <p data-testid="credit-meter-budget">No monthly budget of your own.</p>
      )}
    </div>
  );
}

/** What sets the figure left, when it is not the key's own credits or the pool. */
const limitWords: Record<MeterKey["limitedBy"], string | null> = {
  credits: null,
  pool: null,
  daily_cap: "the key's daily cap",
  cap: "the key's own cap",
  budget: "your monthly budget",
};

/** A role that may not run lookups here (a viewer): the server's sentence. */
function RoleRefusal({ message }: { message: string }) {
  return (
    <p className="text-xs font-medium text-foreground" data-testid="credit-meter-role">
      {message}
    </p>
  );
}

const compactBarColors: Record<CreditLevel, string> = { ok: "bg-accent", low: "bg-warning", critical: "bg-danger" };

/** The top bar's meter on narrow screens: what can be spent over a thin bar; the full meter is in the menu. */
function CompactCreditMeter({ className }: { className?: string }) {
  const meter = useQuery(meterQuery());
  const key = meter.data?.key;
  const frame = cx("flex min-w-0 flex-col justify-center gap-1 rounded-lg px-2 py-1 text-xs hover:bg-surface-muted", className);
  if (!key) {
    const refused = meter.data?.lookups.allowed === false;
    return (
      <Link href="/keys" className={frame} data-testid="credit-meter-compact" aria-busy={meter.isPending || undefined}>
        <span className="truncate text-muted">
          {meter.isPending ? "Credits…" : meter.isError ? "Credits unavailable" : refused ? "No lookups here" : "No console key"}
        </span>
      </Link>
    );
  }
  const level = creditLevel({ creditsRemaining: key.creditsSpendable, creditsGranted: key.limitCredits });
  const percent = creditsPercent({ creditsRemaining: key.creditsSpendable, creditsGranted: key.limitCredits });
  return (
    <Link
      href="/keys"
      className={frame}
      data-testid="credit-meter-compact"
      data-credits-remaining={key.creditsRemaining}
      data-credits-spendable={key.creditsSpendable}
      aria-label={`${formatCredits(key.creditsSpendable)} left of ${numberFormat.format(key.limitCredits)} on console key ${key.name}: open Keys`}
      title={`Console key ${key.name}`}
    >
      <span className="truncate font-medium text-foreground tabular-nums">{formatCredits(key.creditsSpendable)}</span>
      <span aria-hidden="true" className="h-1 w-full overflow-hidden rounded-full bg-surface-muted">
        <span className={cx("block h-full", compactBarColors[level])} style={{ width: `${percent}%` }} />
      </span>
    </Link>
  );
}

export function CreditMeter({ costCredits, compact = false, className }: CreditMeterProps) {
  if (compact) return <CompactCreditMeter className={className} />;
  return <FullCreditMeter costCredits={costCredits} className={className} />;
}

function FullCreditMeter({ costCredits, className }: Omit<CreditMeterProps, "compact">) {
  const pageCost = useCurrentOperationCost();
  const cost = costCredits ?? pageCost;
  const meter = useQuery(meterQuery());
  const lastLookup = useQuery(lastLookupQuery()).data;

  const frame = cx("flex min-w-0 flex-col gap-2 rounded-xl border border-border bg-surface p-3 text-sm shadow-sm", className);

  if (meter.isPending) {
    return (
      <section aria-label="Credits" aria-busy="true" className={frame} data-testid="credit-meter">
        <div className="h-5 w-2/3 animate-pulse rounded bg-surface-muted" />
        <div className="h-2 w-full animate-pulse rounded-full bg-surface-muted" />
        <div className="h-4 w-1/2 animate-pulse rounded bg-surface-muted" />
      </section>
    );
  }

  if (meter.isError) {
    return (
      <section aria-label="Credits" className={frame} data-testid="credit-meter">
        <p className="text-muted">Credits could not be loaded.</p>
        <Button variant="secondary" size="sm" onClick={() => void meter.refetch()}>
          Try again
        </Button>
      </section>
    );
  }

  const { key, pool, budget, lookups } = meter.data;
  if (!key) {
    return (
      <section aria-label="Credits" className={frame} data-testid="credit-meter" data-console-key="none" data-lookups-allowed={lookups.allowed}>
        {lookups.message !== null ? (
          <RoleRefusal message={lookups.message} />
        ) : (
          <p className="font-medium text-foreground">No console key</p>
        )}
        {pool ? <PoolLines pool={pool} budget={budget} /> : null}
        {lookups.message === null ? (
          <p className="text-xs text-muted">
            Lookups need one.{" "}
            <Link href="/keys" className={linkClass} data-testid="credit-meter-keys-link">
              Choose a key on the Keys page
            </Link>
          </p>
        ) : null}
      </section>
    );
  }

  // One figure is "left": what the key can spend now, under every limit (its credits or pool, caps, budget).
  const spendable = { creditsRemaining: key.creditsSpendable, creditsGranted: key.limitCredits };
  const level = creditLevel(spendable);
  const lookupsLeft = cost && cost > 0 ? Math.floor(key.creditsSpendable / cost) : null;
  const limitedBy = limitWords[key.limitedBy];

  return (
    <section
      aria-label="Credits"
      className={frame}
      data-testid="credit-meter"
      data-credits-remaining={key.creditsRemaining}
      data-credits-granted={key.creditsGranted}
      data-credits-spendable={key.creditsSpendable}
      data-limited-by={key.limitedBy}
      data-level={level}
    >
      <div className="flex min-w-0 flex-col gap-0.5 text-xs text-muted" data-testid="credit-meter-key">
        <p className="flex items-baseline justify-between gap-2">
          <span>{pool ? "Console key (pool)" : "Console key"}</span>
          <Link href="/keys" className={cx(linkClass, "shrink-0")}>
            Keys
          </Link>
        </p>
        {/* The whole name on its own lines; only a name too long for three lines is cut (whole in the title). */}
        <p className="line-clamp-3 font-medium text-foreground [overflow-wrap:anywhere]" data-testid="credit-meter-key-name" title={key.name}>
          {key.name}
        </p>
      </div>
      <Meter label={pool || limitedBy ? "Credits left" : "Credits"} value={key.creditsSpendable} max={key.limitCredits} variant={variants[level]} />
      {limitedBy ? (
        <p className="text-xs text-muted" data-testid="credit-meter-limit">
          Set by {limitedBy}.
        </p>
      ) : null}
      {pool ? <PoolLines pool={pool} budget={budget} /> : null}
      {cost !== undefined ? (
        <p className="text-xs text-muted" data-testid="credit-meter-cost">
          This page: <span className="font-medium text-foreground">{formatCredits(cost)}</span> per lookup
          {lookupsLeft !== null ? <> · enough for {numberFormat.format(lookupsLeft)} {lookupsLeft === 1 ? "lookup" : "lookups"}</> : null}
        </p>
      ) : null}
      {key.limitMessage !== null ? (
        <p className="text-xs font-medium text-danger" data-testid="credit-meter-empty">
          {key.limitMessage}
        </p>
      ) : level !== "ok" ? (
        <p className={cx("text-xs font-medium", level === "critical" ? "text-danger" : "text-warning")}>
          {level === "critical" ? "Almost out of credits." : "Credits are running low."}{" "}
          <Link href={key.limitedBy === "budget" || key.limitedBy === "pool" ? "/workspace/members" : "/keys"} className="underline underline-offset-2">
            {key.limitedBy === "budget" || key.limitedBy === "pool" ? "Members page" : "Keys page"}
          </Link>
        </p>
      ) : null}
      <LastLookupLine lastLookup={lastLookup} />
    </section>
  );
}
