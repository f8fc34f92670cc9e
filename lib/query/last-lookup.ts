import { queryOptions, type QueryClient } from "@tanstack/react-query";

/** The last lookup's charge, for the credit meter ("−4 credits" / "failed — nothing charged"). */
export type LastLookup = {
  operation: string;
  status: number;
  creditsCharged: number;
  at: number;
};

const lastLookupKey = ["last-lookup"] as const;

/** Written by fetchLookup; the query function only hands back what is already cached. */
export const lastLookupQuery = () =>
  queryOptions({
    queryKey: lastLookupKey,
    queryFn: ({ client }): LastLookup | null => client.getQueryData<LastLookup | null>(lastLookupKey) ?? null,
    staleTime: Infinity,
    gcTime: Infinity,
  });

export const recordLastLookup = (client: QueryClient, lastLookup: LastLookup) => {
  client.setQueryData(lastLookupKey, lastLookup);
};
