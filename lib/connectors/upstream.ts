import type { RecordKind } from "@/lib/records/kinds";
import type { Db } from "@/lib/db/client";
import { describeError, log } from "@/lib/log";
import type { CursorCodec } from "./cursor";
import type { ProviderTools, Source, SourceAnswer } from "./source";
import type { StoreConnector } from "./store";
import type { LookupContext, LookupResult } from "./types";
import { UpstreamUnavailableError, type ProviderCredentials, type UpstreamClient, type UpstreamStatus } from "./upstream-client";
import type { ProviderConfig } from "./upstream-config";
import { countBreakerOpen, countCacheLookup, countSingleFlightJoin, observeFetch } from "./upstream-metrics";
import type { BreakerSnapshot, ConcurrencySnapshot } from "./upstream-resilience";

/**
 * The upstream engine: every source's lookups answered by a provider of the same API, through a
 * cache in the record store. What the provider is asked and how its answer maps to our records is
 * the operation's source (lib/operations/<op>/source.ts); the cache's time to live is its kind's
 * (the setting its `ttlVariable` names).
 *
 *   fresh cached page          → cache "hit" (costs nothing when CACHE_HIT_CREDITS=free)
 *   store-then-upstream and the subject's records are the store's own (demo, import), any age
 *                              → the store connector's answer
 *   otherwise                  → context.reserve() (the pipeline commits on success, refunds
 *                                on failure), then one provider call shared by every identical
 *                                concurrent miss (single-flight) → cache "miss"
 *
 * Lists paged by cursor (followers): our cursors carry (owner, offset), signed. The provider's own
 * cursor for the page at an offset is kept in upstream_cursors when its previous page is fetched,
 * so a client continuing with our end_cursor reaches the provider's next page (the provider's node
 * id and cursors never reach our clients; paged-list.ts).
 */
/** A kind's upstream cache TTL in seconds: the setting its ttlVariable names (select.ts). */
export type CacheTtlOf = (kind: RecordKind) => number;

export type UpstreamControl = {
  status(): UpstreamStatus & { breaker: BreakerSnapshot; concurrency: ConcurrencySnapshot };
  readonly config: ProviderConfig;
};

export type UpstreamConnector = StoreConnector & { readonly upstream: UpstreamControl };

// A finished call's result stays joinable this long by requests that arrived while it was in
// flight: one that was still reserving its credits when the call ended uses that answer instead
// of making a second call. Requests that arrive later read the cache (or ask again).
const RECENT_RESULT_MS = 2000;

type Fetched = SourceAnswer | null;

export const createUpstreamConnector = (deps: {
  db: () => Promise<Db>;
  cursors: CursorCodec;
  client: UpstreamClient;
  config: ProviderConfig;
  mode: "upstream" | "store-then-upstream";
  store: StoreConnector;
  ttlOf: CacheTtlOf;
  cacheHitCredits: "full" | "free";
  now?: () => number;
}): UpstreamConnector => {
  const now = deps.now ?? Date.now;
  const tools = { cursors: deps.cursors };
  const flights = new Map<string, Promise<Fetched>>();
  const recent = new Map<string, { result: Fetched; endedAt: number }>();

  const remember = (key: string, result: Fetched) => {
    const endedAt = now();
    if (recent.size > 1000) {
      for (const [name, entry] of recent) if (endedAt - entry.endedAt >= RECENT_RESULT_MS) recent.delete(name);
    }
    recent.set(key, { result, endedAt });
  };

  const joinable = (key: string, arrivedAt: number): Promise<Fetched> | null => {
    const flight = flights.get(key);
    if (flight) return flight;
    const done = recent.get(key);
    if (done && done.endedAt >= arrivedAt && now() - done.endedAt < RECENT_RESULT_MS) return Promise.resolve(done.result);
    return null;
  };

  const ownerKey = (credentials: ProviderCredentials) =>
    credentials.owner.kind === "shared" ? "shared" : `user:${credentials.owner.userId}`;

  const hit = (page: SourceAnswer): LookupResult => ({
    found: true,
    dataJson: page.dataJson,
    asOf: page.asOf,
    cache: "hit",
    ...(deps.cacheHitCredits === "free" ? { costCredits: 0 } : {}),
  });

  const miss = (page: Fetched): LookupResult =>
    page === null ? { found: false } : { found: true, dataJson: page.dataJson, asOf: page.asOf, cache: "miss" };

  /** Stores fetched records; a failed write is logged and the answer still goes out. */
  const storeQuietly = async (what: string, write: (db: Db) => Promise<unknown>) => {
    try {
      await write(await deps.db());
    } catch (error) {
      log.warn("upstream cache write failed", { what, error: describeError(error) });
    }
  };

  /** The client's max-age when it sent one, else the operator's TTL. */
  const freshness = (ttlS: number, context: LookupContext) => ({ ttlMs: (context.maxAgeS ?? ttlS) * 1000, now: now() });

  const lookup = async <Params, Data>(source: Source<Params, Data>, params: Params, context: LookupContext): Promise<LookupResult> => {
    const arrivedAt = now();
    const probe = async () => source.probe(await deps.db(), params, freshness(deps.ttlOf(source.kind), context), tools);
    const first = await probe();
    if (deps.mode === "store-then-upstream" && !first.fresh && first.storeSource !== null && first.storeSource !== "upstream") {
      return deps.store.lookup(source, params, context);
    }
    countCacheLookup(first);
    if (first.fresh) return hit(first.fresh);
    // Refusals that need no provider call come before any credit is reserved.
    const credentials = await deps.config.credentialsFor(context.keyOwnerId);
    if (deps.client.guard.isOpen()) {
      countBreakerOpen();
      throw new UpstreamUnavailableError("upstream circuit breaker is open: failing fast until its cool-down ends", "breaker_open");
    }
    if (!(await context.reserve())) return { found: false };

    const key = `${ownerKey(credentials)}|${source.kind.cacheKind}|${source.key(params)}`;
    let flight = joinable(key, arrivedAt);
    if (!flight) {
      // A call that finished while we reserved may have filled the cache.
      const again = await probe();
      if (again.fresh) return miss(again.fresh);
      flight = joinable(key, arrivedAt);
    }
    if (flight) countSingleFlightJoin();
    else {
      const observed = observeFetch();
      const provider: ProviderTools = {
        ...tools,
        get: (path, query) => observed.get(path, () => deps.client.get(credentials, path, query)),
        db: deps.db,
        now,
        keep: (write) => storeQuietly(source.kind.cacheKind, write),
      };
      const started = source.fetch(params, provider);
      flights.set(key, started);
      flight = started;
      started.then(
        (result) => {
          observed.found(result !== null);
          remember(key, result);
          flights.delete(key);
        },
        (error: unknown) => {
          observed.failed(error);
          flights.delete(key);
        },
      );
    }
    return miss(await flight);
  };

  return {
    name: deps.mode,
    lookup,
    clearCache: () => {
      deps.store.clearCache();
      recent.clear();
    },
    upstream: {
      config: deps.config,
      status: () => ({
        ...deps.client.status(),
        breaker: deps.client.guard.breaker(),
        concurrency: deps.client.guard.concurrency(),
      }),
    },
  };
};
