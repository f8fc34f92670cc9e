import { queryOptions } from "@tanstack/react-query";
import type { Publication } from "@/lib/api/records";
import { runLookup, type LookupData, type LookupSuccess } from "./lookup";

/**
 * One page of a profile's publications (decisions.md 4.4): `urn` + `page`, page size 10,
 * 1 credit a page. Every page is kept for the session and never refetched by itself; pages
 * already seen cost nothing to show again (paging back, Back button, exports).
 */
export const PUBLICATIONS_PAGE_SIZE = 10;

export type PublicationsPage = LookupSuccess<LookupData["get_user_publications"]>;

export type { Publication };

/** A profile URN as /v1 accepts it: `urn:li:<type>:<id>`. */
export const isProfileUrn = (value: string): boolean => /^urn:li:[A-Za-z_]+:[A-Za-z0-9_-]{1,100}$/.test(value);

/** All pages of one profile share this prefix: `queryClient.getQueriesData({ queryKey: publicationsKeyFor(urn) })`. */
export const publicationsKeyFor = (urn: string) => ["publications", urn] as const;

export const publicationsQuery = (urn: string, page: number) =>
  queryOptions({
    queryKey: [...publicationsKeyFor(urn), page] as const,
    // No `signal`: a charged answer must reach the cache even if the user has paged on.
    queryFn: ({ client }): Promise<PublicationsPage> => runLookup("get_user_publications", { urn, page }, { client }),
    staleTime: Infinity,
    gcTime: Infinity,
    retry: false,
    // Coming back to a page that failed asks again (failures are free); a page held is never refetched.
    retryOnMount: true,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
