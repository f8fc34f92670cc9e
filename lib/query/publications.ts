import { queryOptions } from "@tanstack/react-query";
import type { Publication, PublicationsData } from "@/lib/records/records";
import { acceptsParam } from "@/lib/records/param-rules";
import { publicationsOperation as publications } from "@/lib/operations/publications/descriptor";
import { fetchLookup, type LookupSuccess } from "./fetch-lookup";

/**
 * One page of a profile's publications (docs/decisions.md "Parameters"): `urn` + `page`; page size and cost
 * are the operation's (lib/operations/publications/descriptor.ts). Every page is kept for the session and never refetched by itself; pages
 * already seen cost nothing to show again (paging back, Back button, exports).
 */
export { PUBLICATIONS_PAGE_SIZE } from "@/lib/operations/publications/descriptor";

export const publicationsPageCost = publications.costCredits;

export type PublicationsPage = LookupSuccess<PublicationsData>;

export type { Publication };

/** A page number as /v1 accepts it (`page`: a whole number from 1). */
export const isPageNumber = (value: string): boolean => acceptsParam("page", value);

/** A profile URN as /v1 accepts it: `urn:li:<type>:<id>`. */
export const isProfileUrn = (value: string): boolean => acceptsParam("urn", value);

/** All pages of one profile share this prefix: `queryClient.getQueriesData({ queryKey: publicationsKeyFor(urn) })`. */
export const publicationsKeyFor = (urn: string) => ["publications", urn] as const;

export const publicationsQuery = (urn: string, page: number) =>
  queryOptions({
    queryKey: [...publicationsKeyFor(urn), page] as const,
    // No `signal`: a charged answer must reach the cache even if the user has paged on.
    queryFn: ({ client }): Promise<PublicationsPage> => fetchLookup<PublicationsData>(publications, { urn, page }, { client }),
    staleTime: Infinity,
    gcTime: Infinity,
    retry: false,
    // Coming back to a page that failed asks again (failures are free); a page held is never refetched.
    retryOnMount: true,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
