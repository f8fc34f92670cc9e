import { Batches } from "./batches.js";
import { GeneratedOperations, operations, type AccountData, type OperationName } from "./generated/operations.js";
import { pagedOperation, queryOf } from "./paging.js";
import { Transport } from "./transport.js";
import type { Answer, CallOptions, PagedOperation, RetryEvent } from "./types.js";

export type ClientOptions = {
  /** The API key (a Bearer token). Default: $SOCIAL_LOOKUP_API_KEY. */
  apiKey?: string;
  /** Where the server is, e.g. "https://lookup.example.com". Default: $SOCIAL_LOOKUP_BASE_URL, else http://localhost:3000. */
  baseUrl?: string;
  /** Per HTTP attempt, in ms (default 30,000). */
  timeoutMs?: number;
  /** Retries after a network error or a 5xx, with jittered exponential backoff (default 2; 0: none). */
  maxRetries?: number;
  /** First backoff, in ms (default 250); it doubles each retry… */
  retryBaseDelayMs?: number;
  /** …up to this (default 8,000). */
  retryMaxDelayMs?: number;
  /** 429s with Retry-After waited out in a row before the RateLimitedError is thrown (default 30; 0: none). */
  maxRateLimitWaits?: number;
  /** Another fetch (tests, proxies). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Told before each wait for a retry: why and how long. */
  onRetry?: (event: RetryEvent) => void;
};

const environment = (name: string): string | undefined => {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === undefined || value === "" ? undefined : value;
};

/**
 * The Social Lookup API client: one method per operation (generated from the registry, see
 * GeneratedOperations), `account()` and `batches`.
 *
 *   const client = new SocialLookup({ apiKey, baseUrl });
 *   const { data, credits } = await client.eventDetailsId({ event_id: "1000000000000001" });
 *   for await (const follower of client.followers.iterate({ userid: "2000000001" })) …
 */
export class SocialLookup extends GeneratedOperations {
  readonly batches: Batches;
  readonly #transport: Transport;
  readonly #paged = new Map<OperationName, unknown>();

  constructor(options: ClientOptions = {}) {
    super();
    const apiKey = options.apiKey ?? environment("SOCIAL_LOOKUP_API_KEY");
    if (apiKey === undefined || apiKey.trim() === "") {
      throw new TypeError("SocialLookup needs an API key: pass { apiKey } or set SOCIAL_LOOKUP_API_KEY");
    }
    const baseUrl = (options.baseUrl ?? environment("SOCIAL_LOOKUP_BASE_URL") ?? "http://localhost:3000").replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new TypeError(`baseUrl must be an http(s) URL, got "${baseUrl}"`);
    const whole = (value: number | undefined, fallback: number, name: string): number => {
      const chosen = value ?? fallback;
      if (!Number.isFinite(chosen) || chosen < 0) throw new TypeError(`${name} must be a number ≥ 0`);
      return chosen;
    };
    this.#transport = new Transport({
      apiKey: apiKey.trim(),
      baseUrl,
      timeoutMs: whole(options.timeoutMs, 30_000, "timeoutMs"),
      maxRetries: whole(options.maxRetries, 2, "maxRetries"),
      retryBaseDelayMs: whole(options.retryBaseDelayMs, 250, "retryBaseDelayMs"),
      retryMaxDelayMs: whole(options.retryMaxDelayMs, 8000, "retryMaxDelayMs"),
      maxRateLimitWaits: whole(options.maxRateLimitWaits, 30, "maxRateLimitWaits"),
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      onRetry: options.onRetry ?? null,
    });
    this.batches = new Batches(this.#transport);
  }

  /** The server this client calls. */
  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /**
   * The key's balance, limits and spend: `GET /v1/account`. Free: no credits, no usage record;
   * it counts towards the per-second limit. Every figure is current.
   */
  async account(options?: CallOptions): Promise<Answer<AccountData>> {
    return this.#transport.json<AccountData>({ method: "GET", path: "/v1/account", idempotent: true }, options);
  }

  protected async lookup<Data>(name: OperationName, params: object, options: CallOptions | undefined): Promise<Answer<Data>> {
    const spec = operations[name];
    return await this.#transport.json<Data>({ method: "GET", path: spec.path, query: queryOf(spec, params), idempotent: true }, options);
  }

  protected paged<Params extends object, Data, Entry>(name: OperationName): PagedOperation<Params, Data, Entry> {
    const known = this.#paged.get(name);
    if (known !== undefined) return known as PagedOperation<Params, Data, Entry>;
    const spec = operations[name];
    const made = pagedOperation<Params, Data, Entry>(spec, (query, options) =>
      this.#transport.json<Data>({ method: "GET", path: spec.path, query, idempotent: true }, options),
    );
    this.#paged.set(name, made);
    return made;
  }
}
