"use client";

import type { ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { UsageGroup } from "@/lib/query/usage";
import {
  formatCount,
  formatLatencyBound,
  formatShortDay,
  operationColor,
  operationLabel,
  statusClassColors,
} from "./format";

/**
 * The usage page's four charts (recharts), fed by the summary's groups: credits per day stacked
 * by operation, requests per day by status class, credits by key, latency p50/p95 per operation.
 * Colours come from the theme's CSS variables, so the charts follow dark mode.
 */
const axisTick = { fill: "var(--muted)", fontSize: 12 };
const tooltipStyle = {
  contentStyle: {
    background: "var(--surface)",
    border: "1px solid var(--border)",
    borderRadius: 8,
    color: "var(--foreground)",
    fontSize: 13,
  },
  labelStyle: { color: "var(--foreground)", fontWeight: 600 },
  cursor: { fill: "var(--surface-muted)" },
} as const;
const legendStyle = { fontSize: 12, color: "var(--muted)" };
const CHART_HEIGHT = 260;

function ChartCard({ title, description, testId, children }: { title: string; description: string; testId: string; children: ReactNode }) {
  return (
    <Card data-testid={testId} className="min-w-0">
      <CardHeader>
        <CardTitle as="h3">{title}</CardTitle>
        <CardDescription>{description}</CardDescription>
      </CardHeader>
      <CardContent className="pt-4 sm:pt-4">{children}</CardContent>
    </Card>
  );
}

const operationsIn = (groups: UsageGroup[]): string[] => {
  const names = new Set<string>();
  for (const group of groups) for (const name of Object.keys(group.operations)) names.add(name);
  return [...names];
};

const countTick = (value: number) => formatCount(value);

/** Bars per UTC day (`data[].day`), one stacked segment per series; series are named in the tooltip and legend by `seriesLabel`. */
function DailyStackedBars({
  data,
  stackId,
  series,
  seriesLabel = (name) => name,
}: {
  data: Array<Record<string, string | number>>;
  stackId: string;
  series: Array<{ key: string; color: string }>;
  seriesLabel?: (name: string) => string;
}) {
  return (
    <BarChart responsive data={data} style={{ width: "100%", height: CHART_HEIGHT }} margin={{ top: 4, right: 4, bottom: 0, left: -12 }}>
      <CartesianGrid vertical={false} stroke="var(--border)" />
      <XAxis dataKey="day" tick={axisTick} tickLine={false} axisLine={{ stroke: "var(--border)" }} minTickGap={12} />
      <YAxis tick={axisTick} tickLine={false} axisLine={false} allowDecimals={false} tickFormatter={countTick} />
      <Tooltip {...tooltipStyle} formatter={(value, name) => [formatCount(Number(value)), seriesLabel(String(name))]} />
      <Legend wrapperStyle={legendStyle} formatter={(name) => seriesLabel(String(name))} />
      {series.map(({ key, color }) => (
        <Bar key={key} dataKey={key} stackId={stackId} fill={color} isAnimationActive={false} />
      ))}
    </BarChart>
  );
}

export function CreditsPerDayChart({ days }: { days: UsageGroup[] }) {
  const operations = operationsIn(days);
  const data = days.map((day) => ({
    day: formatShortDay(day.id),
    ...Object.fromEntries(operations.map((name) => [name, day.operations[name]?.credits ?? 0])),
  }));
  return (
    <ChartCard title="Credits per day" description="Credits charged, stacked by operation (UTC days)." testId="chart-credits-per-day">
      <DailyStackedBars
        data={data}
        stackId="credits"
        series={operations.map((name) => ({ key: name, color: operationColor(name) }))}
        seriesLabel={operationLabel}
      />
    </ChartCard>
  );
}

const STATUS_CLASSES = ["2xx", "4xx", "5xx"] as const;

export function RequestsByStatusChart({ days }: { days: UsageGroup[] }) {
  const data = days.map((day) => ({ day: formatShortDay(day.id), ...day.statusClasses }));
  return (
    <ChartCard title="Requests per day" description="Every finished request, by status class (UTC days)." testId="chart-requests-by-status">
      <DailyStackedBars
        data={data}
        stackId="status"
        series={STATUS_CLASSES.map((statusClass) => ({ key: statusClass, color: statusClassColors[statusClass] }))}
      />
    </ChartCard>
  );
}

export function CreditsByKeyChart({ keys }: { keys: UsageGroup[] }) {
  const data = keys.map((key) => ({ key: key.label, credits: key.credits, requests: key.requests }));
  const height = Math.max(CHART_HEIGHT, 44 + data.length * 32);
  return (
    <ChartCard title="Credits by key" description="Credits charged in the period, biggest first." testId="chart-credits-by-key">
      <BarChart responsive layout="vertical" data={data} style={{ width: "100%", height }} margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
        <CartesianGrid horizontal={false} stroke="var(--border)" />
        <XAxis type="number" tick={axisTick} tickLine={false} axisLine={{ stroke: "var(--border)" }} allowDecimals={false} tickFormatter={countTick} />
        <YAxis type="category" dataKey="key" tick={axisTick} tickLine={false} axisLine={false} width={110} />
        <Tooltip {...tooltipStyle} formatter={(value, name) => [formatCount(Number(value)), name === "credits" ? "Credits" : String(name)]} />
        <Bar dataKey="credits" fill="var(--accent)" radius={[0, 4, 4, 0]} maxBarSize={28} isAnimationActive={false} />
      </BarChart>
    </ChartCard>
  );
}

export function LatencyChart({ operations }: { operations: UsageGroup[] }) {
  const data = operations
    .filter((operation) => operation.requests > 0)
    .map((operation) => ({
      operation: operationLabel(operation.id),
      p50: operation.latency.p50Ms,
      p95: operation.latency.p95Ms,
    }));
  // Bucket bounds are powers of two: ticks at powers of four keep the log axis readable.
  const highest = Math.max(1, ...data.flatMap((row) => [row.p50 ?? 1, row.p95 ?? 1]));
  const ticks: number[] = [];
  for (let tick = 1; ticks.at(-1) === undefined || (ticks.at(-1) ?? 1) < highest; tick *= 4) ticks.push(tick);
  return (
    <ChartCard
      title="Latency per operation"
      description="p50 and p95, as histogram bucket bounds (powers of two): “≤ 64 ms” means under 64 ms."
      testId="chart-latency"
    >
      <BarChart responsive data={data} style={{ width: "100%", height: CHART_HEIGHT }} margin={{ top: 4, right: 4, bottom: 0, left: -4 }}>
        <CartesianGrid vertical={false} stroke="var(--border)" />
        <XAxis dataKey="operation" tick={axisTick} tickLine={false} axisLine={{ stroke: "var(--border)" }} interval={0} />
        <YAxis
          scale="log"
          domain={[1, ticks.at(-1) ?? 1]}
          ticks={ticks}
          allowDataOverflow
          tick={axisTick}
          tickLine={false}
          axisLine={false}
          tickFormatter={(value: number) => (value >= 1000 ? `${Math.round(value / 100) / 10}s` : `${value}ms`)}
        />
        <Tooltip {...tooltipStyle} formatter={(value, name) => [formatLatencyBound(Number(value)), String(name)]} />
        <Legend wrapperStyle={legendStyle} />
        <Bar dataKey="p50" name="p50" fill="var(--accent)" maxBarSize={36} isAnimationActive={false} />
        <Bar dataKey="p95" name="p95" fill="oklch(70% 0.13 210)" maxBarSize={36} isAnimationActive={false} />
      </BarChart>
    </ChartCard>
  );
}
