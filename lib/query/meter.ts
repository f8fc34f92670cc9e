import { queryOptions, type QueryClient } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";

/**
 * The credit meter's data (GET /api/console/meter): the signed-in user's console key and its
 * credits, or `key: null` when no console key is chosen. Lookups keep it current from their
 * `X-Credits-Remaining` header (lib/query/lookup.ts), so it is fetched once per page load and
 * refreshed only when something it cannot see may have changed it (key switch, top-up).
 */
export type MeterKey = {
  id: string;
  name: string;
  creditsRemaining: number;
  creditsGranted: number;
  qpsLimit: number;
};

/** A team workspace's pool (the console key draws from it) and the member's monthly budget. */
export type MeterPool = { id: string; name: string; poolCredits: number; poolGranted: number };
export type MeterBudget = { monthlyCredits: number; spentCredits: number; leftCredits: number };

export type MeterData = { key: MeterKey | null; pool: MeterPool | null; budget: MeterBudget | null };

export const meterQueryKey = ["meter"] as const;

export const meterQuery = () =>
  queryOptions({
    queryKey: meterQueryKey,
    queryFn: ({ signal }) => fetchJson<MeterData>("/api/console/meter", { signal }),
    // Free to fetch, but lookups already keep it current: a minute avoids a request per focus.
    staleTime: 60_000,
  });

/** Sets the console key's balance from a lookup answer; refetches when the cache cannot be patched. */
export const updateMeterCredits = (client: QueryClient, creditsRemaining: number): void => {
  const { queryKey } = meterQuery();
  const current = client.getQueryData(queryKey);
  if (current?.key) {
    // A pooled key's balance is the pool's.
    const pool = current.pool ? { ...current.pool, poolCredits: creditsRemaining } : null;
    client.setQueryData(queryKey, { ...current, key: { ...current.key, creditsRemaining }, pool });
    // The budget's spend is not in the answer's headers: read it again.
    if (current.budget === null) return;
  }
  void client.invalidateQueries({ queryKey: meterQueryKey });
};

/** After a console-key switch, a top-up or a key revocation: the meter must be read again. */
export const refreshMeter = (client: QueryClient): Promise<void> => client.invalidateQueries({ queryKey: meterQueryKey });

/** Share of the granted credits still left, 0–100; a key granted nothing counts as empty. */
export const creditsPercent = (key: Pick<MeterKey, "creditsRemaining" | "creditsGranted">): number =>
  key.creditsGranted <= 0 ? 0 : Math.min(100, Math.max(0, (key.creditsRemaining / key.creditsGranted) * 100));

export type CreditLevel = "ok" | "low" | "critical";

/** Amber under 20 % of the granted credits, red under 5 %. */
export const creditLevel = (key: Pick<MeterKey, "creditsRemaining" | "creditsGranted">): CreditLevel => {
  const percent = creditsPercent(key);
  if (percent < 5) return "critical";
  if (percent < 20) return "low";
  return "ok";
};
