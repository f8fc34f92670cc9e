import { infiniteQueryOptions, keepPreviousData, queryOptions, type QueryClient } from "@tanstack/react-query";
import type { KeyAlert } from "@/lib/alerts/alerts";
import type { BudgetView, KeyAlertsView } from "@/lib/console-api/alerts";
import type { AlertSettingsInput } from "@/lib/alerts/settings";
import type { EventsResponse, SummaryResponse } from "@/lib/console-api/usage";
import { fetchJson, jsonRequest } from "./fetch-json";

/**
 * Browser access to usage (/api/usage/*) and low-credit alerts (/api/alerts, /api/keys/:id/alerts,
 * /api/keys/:id/budget): query option factories, the CSV export URLs and mutations.
 */
export type { BudgetView, EventsResponse, KeyAlert, KeyAlertsView, SummaryResponse };
export type { UsageEvent } from "@/lib/usage/events";
export type { ForecastResult, KeyForecast, PoolForecast } from "@/lib/usage/forecast";
export type { UsageGroup } from "@/lib/usage/summary";
export type { WebhookDelivery } from "@/lib/alerts/alerts";

/**
 * Whose usage: one key, a user's keys (admins), everyone (admins), every key of a workspace
 * (its members), or the caller's own keys.
 */
export type UsageScopeParams = { keyId?: string; userId?: string; everyone?: boolean; workspaceId?: string };

/** UTC days, both included. */
export type DayRangeParams = { from: string; to: string };

export type LogFilterParams = {
  keyId?: string;
  operation?: string;
  /** "402", "4xx", … */
  status?: string;
  /** ISO date-times or days; default: the page's days. */
  from?: string;
  to?: string;
  requestId?: string;
  /** "api", "console", "batch" or "mcp". */
  channel?: string;
};

export const LOG_PAGE_SIZE = 50;

export const usageKeys = {
  all: ["usage"] as const,
  summary: (scope: UsageScopeParams, range: DayRangeParams) => ["usage", "summary", scope, range] as const,
  events: (scope: UsageScopeParams, filters: LogFilterParams) => ["usage", "events", scope, filters] as const,
  openAlerts: ["alerts", "open"] as const,
  keyAlerts: (keyId: string) => ["alerts", "key", keyId] as const,
};

const searchOf = (entries: Record<string, string | undefined>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(entries)) if (value !== undefined && value !== "") search.set(name, value);
  return search.toString();
};

const scopeEntries = (scope: UsageScopeParams) => ({
  keyId: scope.keyId,
  userId: scope.userId,
  scope: scope.everyone ? "all" : undefined,
  workspaceId: scope.workspaceId,
});

export const usageSummaryQuery = (scope: UsageScopeParams, range: DayRangeParams) =>
  queryOptions({
    queryKey: usageKeys.summary(scope, range),
    queryFn: ({ signal }) =>
      fetchJson<SummaryResponse>(
        `/api/usage/summary?${searchOf({ ...scopeEntries(scope), ...range, groupBy: scope.workspaceId ? "day,operation,key,member" : "day,operation,key" })}`,
        { signal },
      ),
    // Switching period or scope keeps the old charts on screen until the new numbers arrive.
    placeholderData: keepPreviousData,
  });

/** The log's scope: a key chosen in its filter narrows the page's scope. */
const logEntries = (scope: UsageScopeParams, filters: LogFilterParams) => ({
  ...scopeEntries(scope),
  keyId: filters.keyId ?? scope.keyId,
  operation: filters.operation,
  status: filters.status,
  from: filters.from,
  to: filters.to,
  requestId: filters.requestId,
  channel: filters.channel,
});

export const usageEventsQuery = (scope: UsageScopeParams, filters: LogFilterParams) =>
  infiniteQueryOptions({
    queryKey: usageKeys.events(scope, filters),
    queryFn: ({ pageParam, signal }) =>
      fetchJson<EventsResponse>(
        `/api/usage/events?${searchOf({ ...logEntries(scope, filters), limit: String(LOG_PAGE_SIZE), cursor: pageParam })}`,
        { signal },
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

/** The request log as CSV, with the log's filters. */
export const eventsExportUrl = (scope: UsageScopeParams, filters: LogFilterParams): string =>
  `/api/usage/export?${searchOf({ kind: "events", ...logEntries(scope, filters) })}`;

/** The daily totals of the page's scope and days as CSV. */
export const dailyExportUrl = (scope: UsageScopeParams, range: DayRangeParams): string =>
  `/api/usage/export?${searchOf({ kind: "daily", ...scopeEntries(scope), ...range })}`;

/** A workspace's usage by member over the page's days as CSV. */
export const membersExportUrl = (scope: UsageScopeParams, range: DayRangeParams): string =>
  `/api/usage/export?${searchOf({ kind: "members", ...scopeEntries(scope), ...range })}`;

export const openAlertsQuery = () =>
  queryOptions({
    queryKey: usageKeys.openAlerts,
    queryFn: async ({ signal }) => (await fetchJson<{ alerts: KeyAlert[] }>("/api/alerts", { signal })).alerts,
    // Alerts are written by lookups; a minute is soon enough for a banner.
    refetchInterval: 60_000,
  });

const keyPath = (keyId: string) => `/api/keys/${encodeURIComponent(keyId)}`;

export const keyAlertsQuery = (keyId: string) =>
  queryOptions({
    queryKey: usageKeys.keyAlerts(keyId),
    queryFn: ({ signal }) => fetchJson<KeyAlertsView>(`${keyPath(keyId)}/alerts`, { signal }),
    // Deliveries change in the background (retries): keep the log current while it is open.
    refetchInterval: 10_000,
  });

export const saveKeyAlerts = (keyId: string, input: AlertSettingsInput): Promise<KeyAlertsView> =>
  fetchJson<KeyAlertsView>(`${keyPath(keyId)}/alerts`, jsonRequest("PUT", input));

export const saveBudget = (keyId: string, dailyCreditCap: number | null): Promise<BudgetView> =>
  fetchJson<BudgetView>(`${keyPath(keyId)}/budget`, jsonRequest("PUT", { dailyCreditCap }));

export const acknowledgeAlert = (alertId: string): Promise<{ acknowledged: number }> =>
  fetchJson<{ acknowledged: number }>(`/api/alerts/${encodeURIComponent(alertId)}/ack`, jsonRequest("POST"));

/** After an alert or budget change: the banner and the key's alert view are stale. */
export const refreshAlerts = (client: QueryClient, keyId?: string): Promise<void> =>
  Promise.all([
    client.invalidateQueries({ queryKey: usageKeys.openAlerts }),
    keyId ? client.invalidateQueries({ queryKey: usageKeys.keyAlerts(keyId) }) : Promise.resolve(),
  ]).then(() => undefined);
