"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useId, useMemo, useState, type ComponentType } from "react";
import { buttonStyles } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import { FormError } from "@/components/ui/form-alert";
import { errorMessage } from "@/components/keys/format";
import { usersQuery } from "@/lib/query/account";
import { keyLabel } from "@/lib/keys/label";
import { keysQuery } from "@/lib/query/keys";
import { dailyExportUrl, membersExportUrl, usageSummaryQuery, type DayRangeParams, type UsageScopeParams } from "@/lib/query/usage";
import { activeWorkspace, workspacesQuery } from "@/lib/query/workspaces";
import { addDays, dayCount, isDay, utcDay } from "@/lib/usage/period";
import { ForecastTable } from "./forecast-table";
import { FirstUse } from "./first-use";
import { formatDay } from "./format";
import { RequestLog, type LogKeyOption } from "./request-log";
import { UsageByMember } from "./usage-by-member";
import { EmptyState, Skeleton } from "./skeleton";
import { UsageTotals } from "./usage-totals";
import { bindValue } from "@/components/ui/bind-value";
import { controlClass, Field } from "@/components/ui/field";

// The chart library is most of this page's JavaScript: it loads after the page, behind skeletons.
const chartLoading = () => <Skeleton className="h-72" />;
type Charts = typeof import("./usage-charts");
const lazyChart = <Props extends object>(pick: (charts: Charts) => ComponentType<Props>) =>
  dynamic(() => import("./usage-charts").then(pick), { ssr: false, loading: chartLoading });
const CreditsPerDayChart = lazyChart((charts) => charts.CreditsPerDayChart);
const RequestsByStatusChart = lazyChart((charts) => charts.RequestsByStatusChart);
const CreditsByKeyChart = lazyChart((charts) => charts.CreditsByKeyChart);
const LatencyChart = lazyChart((charts) => charts.LatencyChart);

type Period = "today" | "7d" | "30d" | "custom";

const PERIODS: { id: Period; label: string }[] = [
  { id: "today", label: "Today" },
  { id: "7d", label: "7 days" },
  { id: "30d", label: "30 days" },
  { id: "custom", label: "Custom" },
];

const MAX_DAYS = 366;

/** "mine" | "all" | "workspace" | "key:<id>" | "user:<id>" — one select covers every scope. */
type ScopeChoice = string;

const scopeParams = (choice: ScopeChoice, workspaceId: string | undefined): UsageScopeParams => {
  if (choice === "all") return { everyone: true };
  if (choice === "workspace") return workspaceId ? { workspaceId } : {};
  if (choice.startsWith("key:")) return { keyId: choice.slice(4) };
  if (choice.startsWith("user:")) return { userId: choice.slice(5) };
  return {};
};

const rangeOf = (period: Period, custom: DayRangeParams, today: string): DayRangeParams => {
  if (period === "today") return { from: today, to: today };
  if (period === "7d") return { from: addDays(today, -6), to: today };
  if (period === "30d") return { from: addDays(today, -29), to: today };
  return custom;
};

const rangeProblem = (range: DayRangeParams): string | null => {
  if (!isDay(range.from) || !isDay(range.to)) return "Pick both days.";
  if (range.from > range.to) return "The first day must not be after the last.";
  if (dayCount(range.from, range.to) > MAX_DAYS) return `Pick at most ${MAX_DAYS} days.`;
  return null;
};

export type UsageDashboardProps = {
  userId: string;
  isAdmin: boolean;
  /** From ?keyId= (links from the forecast and the key pages). */
  initialKeyId?: string;
};

/** The /usage page: period and scope, totals, four charts, forecast, request log, CSV downloads. */
export function UsageDashboard({ userId, isAdmin, initialKeyId }: UsageDashboardProps) {
  const ids = useId();
  const [today] = useState(() => utcDay(new Date()));
  const [period, setPeriod] = useState<Period>("7d");
  // The custom days as typed, and the last valid pair of them (what the page shows).
  const [draft, setDraft] = useState<DayRangeParams>(() => ({ from: addDays(today, -13), to: today }));
  const [custom, setCustom] = useState<DayRangeParams>(draft);
  // A team workspace shows the whole workspace's usage first; a personal one the user's own keys.
  const workspaces = useQuery(workspacesQuery());
  const workspace = activeWorkspace(workspaces.data);
  const team = workspace && !workspace.personal ? workspace : undefined;
  const [picked, setChoice] = useState<ScopeChoice | null>(initialKeyId ? `key:${initialKeyId}` : null);
  const choice = picked ?? (team ? "workspace" : "mine");

  const keys = useQuery(keysQuery(isAdmin ? "all" : "mine"));
  const users = useQuery({ ...usersQuery(), enabled: isAdmin });

  const customProblem = period === "custom" ? rangeProblem(draft) : null;
  const editCustom = (next: DayRangeParams) => {
    setDraft(next);
    if (rangeProblem(next) === null) setCustom(next);
  };
  const range = rangeOf(period, custom, today);

  const scope = useMemo(() => scopeParams(choice, team?.id), [choice, team?.id]);
  // Until the workspaces are known the default scope is not either: no summary of the wrong one.
  const summary = useQuery({ ...usageSummaryQuery(scope, range), enabled: picked !== null || !workspaces.isPending });

  const allKeys = keys.data ?? [];
  const myKeys = allKeys.filter((key) => key.ownerId === userId);
  const otherUsers = (users.data ?? []).filter((user) => user.id !== userId);
  const otherKeys = allKeys.filter((key) => key.ownerId !== userId);
  const keysInScope: LogKeyOption[] = scope.workspaceId
    ? (summary.data?.groups.key ?? []).filter((group) => group.id !== "other").map((group) => ({ id: group.id, name: group.label }))
    : (
    scope.keyId
      ? allKeys.filter((key) => key.id === scope.keyId)
      : scope.userId
        ? allKeys.filter((key) => key.ownerId === scope.userId)
        : scope.everyone
          ? allKeys
          : myKeys
  ).map((key) => ({ id: key.id, name: keyLabel(key.name, key.maker?.email) }));
  // Beyond "mine" and "all": the keys and users a scope can name; empty groups are left out.
  const keyOption = (key: (typeof allKeys)[number], label: string) => ({ value: `key:${key.id}`, label });
  const scopeGroups = [
    { label: "My keys", options: myKeys.map((key) => keyOption(key, key.status === "revoked" ? `${key.name} (revoked)` : key.name)) },
    { label: "Users", options: isAdmin ? otherUsers.map((user) => ({ value: `user:${user.id}`, label: user.email })) : [] },
    { label: "Other users' keys", options: isAdmin ? otherKeys.map((key) => keyOption(key, keyLabel(key.name, key.maker?.email))) : [] },
  ].filter((group) => group.options.length > 0);
  // A key from a link that is not in the list (yet) still shows as the choice.
  const knownChoice = choice === "mine" || choice === "all" || (choice === "workspace" && team !== undefined) || choice.startsWith("user:") || allKeys.some((key) => `key:${key.id}` === choice);

  const data = summary.data;
  const hasRequests = (data?.totals.requests ?? 0) > 0;
  // A brand-new install (or a scope of unused keys): explain the page instead of showing zeros.
  const scopeKeys = keysInScope.map((option) => allKeys.find((key) => key.id === option.id));
  const neverUsed = keys.isSuccess && data !== undefined && !hasRequests && scopeKeys.every((key) => key?.lastUsedAt === null);

  return (
    <div className="flex flex-col gap-6" data-testid="usage-dashboard">
      <Card>
        <CardContent className="flex flex-col gap-4 lg:flex-row lg:items-end lg:justify-between">
          <div className="flex flex-col gap-3">
            <fieldset className="flex flex-col gap-1.5">
              <legend className="mb-1.5 text-sm font-medium">Period</legend>
              <div className="inline-flex w-fit rounded-lg border border-border-strong bg-surface p-0.5 shadow-sm" role="radiogroup" aria-label="Period">
                {PERIODS.map((option) => (
                  <button
                    key={option.id}
                    type="button"
                    role="radio"
                    aria-checked={period === option.id}
                    onClick={() => setPeriod(option.id)}
                    data-testid={`period-${option.id}`}
                    className={cx(
                      "h-8 rounded-md px-3 text-sm font-medium transition-colors",
                      period === option.id ? "bg-accent text-accent-foreground shadow-sm" : "text-muted hover:bg-surface-muted hover:text-foreground",
                    )}
                  >
                    {option.label}
                  </button>
                ))}
              </div>
            </fieldset>
            {period === "custom" ? (
              <div className="flex flex-wrap items-end gap-3">
                <Field label="First day (UTC)" htmlFor={`${ids}-from`}>
                  <input id={`${ids}-from`} type="date" className={controlClass} value={draft.from} max={today} onChange={(event) => editCustom({ ...draft, from: event.target.value })} data-testid="custom-from" />
                </Field>
                <Field label="Last day (UTC)" htmlFor={`${ids}-to`}>
                  <input id={`${ids}-to`} type="date" className={controlClass} value={draft.to} max={today} onChange={(event) => editCustom({ ...draft, to: event.target.value })} data-testid="custom-to" />
                </Field>
              </div>
            ) : null}
            <FormError message={customProblem} />
          </div>
          <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <Field label="Scope" htmlFor={`${ids}-scope`} className="min-w-64">
              <select id={`${ids}-scope`} className={controlClass} {...bindValue(choice, setChoice)} data-testid="scope-select">
                {team ? <option value="workspace">{`Workspace ${team.name}: every key`}</option> : null}
                <option value="mine">All my keys</option>
                {isAdmin ? <option value="all">Everyone</option> : null}
                {!knownChoice ? <option value={choice}>{choice.slice(4)}</option> : null}
                {scopeGroups.map((group) => (
                  <optgroup key={group.label} label={group.label}>
                    {group.options.map((option) => (
                      <option key={option.value} value={option.value}>
                        {option.label}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
            </Field>
            <a href={dailyExportUrl(scope, range)} download className={buttonStyles({ variant: "secondary" })} data-testid="download-daily-csv">
              Daily totals (CSV)
            </a>
          </div>
        </CardContent>
      </Card>

      <p className="-mt-2 text-sm text-muted" data-testid="usage-range">
        {range.from === range.to ? formatDay(range.from) : `${formatDay(range.from)} – ${formatDay(range.to)}`} · days in UTC
        {summary.isFetching && data ? <span className="ml-2">Updating…</span> : null}
      </p>

      {summary.isError && !data ? (
        <FormError message={`Usage could not be loaded: ${errorMessage(summary.error)}`} testId="usage-error" />
      ) : null}

      {neverUsed ? <FirstUse /> : <UsageTotals totals={data?.totals} />}

      {neverUsed ? null : (
        <>
          <section aria-labelledby={`${ids}-charts`} className="flex flex-col gap-3">
            <h2 id={`${ids}-charts`} className="text-lg font-semibold tracking-tight">
              Charts
            </h2>
            {!data ? (
              <div className="grid gap-4 md:grid-cols-2" role="status" aria-label="Loading charts">
                {Array.from({ length: 4 }, (_, index) => (
                  <Skeleton key={index} className="h-80" />
                ))}
              </div>
            ) : !hasRequests ? (
              <EmptyState testId="charts-empty">No requests in this period and scope: nothing to chart yet.</EmptyState>
            ) : (
              <div className="grid gap-4 md:grid-cols-2" data-testid="usage-charts">
                <CreditsPerDayChart days={data.groups.day ?? []} />
                <RequestsByStatusChart days={data.groups.day ?? []} />
                <CreditsByKeyChart keys={data.groups.key ?? []} />
                <LatencyChart operations={data.groups.operation ?? []} />
              </div>
            )}
          </section>

          {scope.workspaceId && data ? <UsageByMember members={data.groups.member ?? []} exportUrl={membersExportUrl(scope, range)} /> : null}

          <Card>
            <CardHeader>
              <CardTitle as="h2">Burn-rate forecast</CardTitle>
              <CardDescription>At the last 7 days’ rate of spend, when each team pool and each key with credits of its own runs out.</CardDescription>
            </CardHeader>
            <CardContent>
              {data ? <ForecastTable forecast={data.forecast} /> : <Skeleton className="h-32" />}
            </CardContent>
          </Card>

          <Card>
            <CardHeader>
              <CardTitle as="h2">Request log</CardTitle>
              <CardDescription>Every finished request of the scope, newest first: what it asked, how it ended, what it cost.</CardDescription>
            </CardHeader>
            <CardContent>
              <RequestLog key={choice} scope={scope} range={range} keys={keysInScope} />
            </CardContent>
          </Card>
        </>
      )}
    </div>
  );
}
