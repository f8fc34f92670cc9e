/** What every call answers and takes. */

/** The credit headers of an answer: what the call cost and what the key has left. */
export type CreditReceipt = {
  /** The operation's price (X-Credits-Cost); null when the answer carries none (free calls may not). */
  cost: number | null;
  /** What this request was charged (X-Credits-Charged): the price for a 200, else 0. */
  charged: number;
  /** The key's credits after this request (X-Credits-Remaining); null when the answer does not say. */
  remaining: number | null;
};

/** A successful answer: the envelope's `data`, its request id and the credit receipt. */
export type Answer<Data> = {
  data: Data;
  credits: CreditReceipt;
  /** The envelope's requestId: quote it when you report a problem. */
  requestId: string;
  /** HTTP status: 200, or 202 for a created batch. */
  status: number;
  /** When the record was stored or fetched from the provider (X-Data-As-Of), for lookups. */
  dataAsOf: string | null;
};

/** Why and how long the client waits before sending a request again (ClientOptions.onRetry). */
export type RetryEvent = {
  reason: "rate_limited" | "server_error" | "network";
  /** 1 for the first retry of this call. */
  attempt: number;
  waitMs: number;
  status: number | null;
  /** The server's Retry-After (or RateLimit reset), in seconds, on a 429. */
  retryAfterS: number | null;
  requestId: string | null;
};

export type CallOptions = {
  /** Aborts the call, its retries and its waits. */
  signal?: AbortSignal;
  /** Per HTTP attempt, in ms (reading the body included); the client's timeoutMs by default. */
  timeoutMs?: number;
  /** Retries after a network error or a 5xx (the client's maxRetries by default; 0: none). */
  maxRetries?: number;
  /** A lookup's Cache-Control with an upstream data source: "max-age=3600", "no-cache". */
  cacheControl?: string;
};

export type IterateOptions = CallOptions & {
  /** Stop after this many pages. */
  maxPages?: number;
};

/**
 * Pages of one lookup, walked on demand: iterating fetches the first page, and the next only
 * when the one before is used up, so breaking out of the loop spends nothing more. The counters
 * say what the walk has fetched and spent so far.
 */
export interface PageWalk<Item> extends AsyncIterable<Item> {
  readonly pagesFetched: number;
  /** Credits charged for the pages fetched, from their receipts. */
  readonly creditsCharged: number;
  /** The key's credits after the last page; null before the first. */
  readonly creditsRemaining: number | null;
}

/** A paged operation: call it for one page; iterate() for every entry, pages() for every page. */
export interface PagedOperation<Params extends object, Data, Entry> {
  (params: Params, options?: CallOptions): Promise<Answer<Data>>;
  iterate(params: Params, options?: IterateOptions): PageWalk<Entry>;
  pages(params: Params, options?: IterateOptions): PageWalk<Answer<Data>>;
}
