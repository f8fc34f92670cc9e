/**
 * A connector answers the lookups from some source (the record store now; an upstream provider
 * later). It returns the `data` payload already serialised as JSON, so that records stored as
 * JSON text travel to the client without being parsed and re-serialised.
 */
export type LookupResult = { found: true; dataJson: string; asOf: Date | null } | { found: false };

export type FollowersQuery = { userId: string; offset: number };

export interface Connector {
  readonly name: string;
  event(eventId: string): Promise<LookupResult>;
  followers(query: FollowersQuery): Promise<LookupResult>;
  publications(urn: string, page: number): Promise<LookupResult>;
}

export const FOLLOWERS_PAGE_SIZE = 25;
export const PUBLICATIONS_PAGE_SIZE = 10;
