import { queryOptions, type QueryClient } from "@tanstack/react-query";
import type { MeterKeyView, MeterView } from "@/lib/console-api/meter";
import { fetchJson } from "./fetch-json";

/**
 * The credit meter's data (GET /api/console/meter, lib/console-api/meter.ts): the signed-in user's
 * console key — its balance and what it can really spend (the least of every limit, and which
 * limit that is) — or `key: null` when no console key is chosen; the team's pool, the member's
 * budget, and whether the role may run lookups. Lookups keep it current from their
 * `X-Credits-Remaining` header (lib/query/fetch-lookup.ts), so it is fetched once per page load
 * and refreshed only when something it cannot see may have changed it (a cap or budget, a key
 * switch, a top-up).
 */
export type MeterKey = MeterKeyView;
export type MeterData = MeterView;
export type MeterPool = NonNullable<MeterView["pool"]>;
export type MeterBudget = NonNullable<MeterView["budget"]>;

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
    // A pooled key's balance is the pool's; with no other limit, it is also what the key can spend.
    const pool = current.pool ? { ...current.pool, poolCredits: creditsRemaining } : null;
    const creditsSpendable = current.key.capped ? Math.min(current.key.creditsSpendable, creditsRemaining) : creditsRemaining;
    client.setQueryData(queryKey, { ...current, key: { ...current.key, creditsRemaining, creditsSpendable: Math.max(0, creditsSpendable) }, pool });
    // A cap's or budget's spend is not in the answer's headers, nor is the sentence for an empty key: read them again.
    if (!current.key.capped && current.budget === null && creditsRemaining > 0) return;
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
