import { z } from "zod";
import { eventDataSchema, followerEntrySchema, publicationsDataSchema, type FollowerEntry } from "@/lib/records/records";
import type { Db } from "@/lib/db/client";
import { describeError, log } from "@/lib/log";
import { subjectKey } from "@/lib/records/canonical-subject";
import { eventDetailsId } from "@/lib/operations/event-details-id";
import { followers as followersOperation } from "@/lib/operations/followers";
import { publications as publicationsOperation } from "@/lib/operations/publications";
import {
  canonical,
  probeEvent,
  probeFollowers,
  probePublications,
  providerCursorAt,
  storeEvent,
  storeFollowersPage,
  storePublicationsPage,
  type CachedPage,
  type CacheProbe,
} from "./cache";
import { eventDataJson, followersDataJson, publicationsDataJson } from "./answer-json";
import type { CursorCodec } from "./cursor";
import { nodeIdFor } from "@/lib/records/node-id";
import type { StoreConnector } from "./store";
import type { FollowersQuery, LookupContext, LookupResult } from "./types";
import {
  UpstreamBadAnswerError,
  UpstreamError,
  UpstreamUnavailableError,
  type ProviderCredentials,
  type UpstreamClient,
  type UpstreamStatus,
} from "./upstream-client";
import type { ProviderConfig } from "./upstream-config";
import type { BreakerSnapshot, ConcurrencySnapshot } from "./upstream-resilience";

/**
 * The upstream connector: the lookups answered by a provider of the same API, through a cache in
 * the record store. Which provider path answers what is each operation module's `upstream`.
 *
 *   fresh cached page          → cache "hit" (costs nothing when CACHE_HIT_CREDITS=free)
 *   store-then-upstream and the subject's records are the store's own (demo, import), any age
 *                              → the store connector's answer
 *   otherwise                  → context.reserve() (the pipeline commits on success, refunds
 *                                on failure), then one provider call shared by every identical
 *                                concurrent miss (single-flight) → cache "miss"
 *
 * Follower pages: our cursors carry (user id, offset), signed. The provider's own cursor for the
 * page at an offset is kept in upstream_cursors when its previous page is fetched, so a client
 * continuing with our end_cursor reaches the provider's next page (the provider's node id and
 * cursors never reach our clients).
 */
export type CacheTtls = { eventsS: number; followersS: number; publicationsS: number };

export type UpstreamControl = {
  status(): UpstreamStatus & { breaker: BreakerSnapshot; concurrency: ConcurrencySnapshot };
  readonly config: ProviderConfig;
};

export type UpstreamConnector = StoreConnector & { readonly upstream: UpstreamControl };

// The provider may follow the bare contract (followers only) or ours (node_id and page_info too).
const providerFollowersSchema = z.object({
  followers: z.array(followerEntrySchema),
  node_id: z.string().optional(),
  page_info: z.object({ has_next_page: z.boolean(), end_cursor: z.string().nullable() }).optional(),
});

// A finished call's result stays joinable this long by requests that arrived while it was in
// flight: one that was still reserving its credits when the call ended uses that answer instead
// of making a second call. Requests that arrive later read the cache (or ask again).
const RECENT_RESULT_MS = 2000;

type Fetched = CachedPage | null;

const issuePath = (error: z.ZodError): string => {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
};

export const createUpstreamConnector = (deps: {
  db: () => Promise<Db>;
  cursors: CursorCodec;
  client: UpstreamClient;
  config: ProviderConfig;
  mode: "upstream" | "store-then-upstream";
  store: StoreConnector;
  ttls: CacheTtls;
  cacheHitCredits: "full" | "free";
  now?: () => number;
}): UpstreamConnector => {
  const now = deps.now ?? Date.now;
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

  const hit = (page: CachedPage): LookupResult => ({
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

  const lookup = async (
    context: LookupContext,
    spec: {
      flightKey: string;
      probe: () => Promise<CacheProbe>;
      fromStore: () => Promise<LookupResult>;
      fetch: (credentials: ProviderCredentials) => Promise<Fetched>;
    },
  ): Promise<LookupResult> => {
    const arrivedAt = now();
    const probe = await spec.probe();
    if (probe.fresh) return hit(probe.fresh);
    if (deps.mode === "store-then-upstream" && probe.storeSource !== null && probe.storeSource !== "upstream") {
      return spec.fromStore();
    }
    // Refusals that need no provider call come before any credit is reserved.
    const credentials = await deps.config.credentialsFor(context.keyOwnerId);
    if (deps.client.guard.isOpen()) {
      throw new UpstreamUnavailableError("upstream circuit breaker is open: failing fast until its cool-down ends");
    }
    if (!(await context.reserve())) return { found: false };

    const key = `${ownerKey(credentials)}|${spec.flightKey}`;
    let flight = joinable(key, arrivedAt);
    if (!flight) {
      // A call that finished while we reserved may have filled the cache.
      const again = await spec.probe();
      if (again.fresh) return miss(again.fresh);
      flight = joinable(key, arrivedAt);
    }
    if (!flight) {
      const started = spec.fetch(credentials);
      flights.set(key, started);
      flight = started;
      started.then(
        (result) => {
          remember(key, result);
          flights.delete(key);
        },
        () => flights.delete(key),
      );
    }
    return miss(await flight);
  };

  /** The client's max-age when it sent one, else the operator's TTL. */
  const freshness = (ttlS: number, context: LookupContext) => ({ ttlMs: (context.maxAgeS ?? ttlS) * 1000, now: now() });

  const event = async (eventId: string, context: LookupContext): Promise<LookupResult> =>
    lookup(context, {
      flightKey: `event|${eventId}`,
      probe: async () => probeEvent(await deps.db(), eventId, freshness(deps.ttls.eventsS, context)),
      fromStore: () => deps.store.event(eventId, context),
      fetch: async (credentials) => {
        const answer = await deps.client.get(credentials, eventDetailsId.upstream.path, { event_id: eventId });
        if (answer.kind === "not_found") return null;
        const parsed = eventDataSchema.safeParse(answer.data);
        if (!parsed.success) throw new UpstreamBadAnswerError(`invalid event from the provider (${issuePath(parsed.error)})`);
        const record = parsed.data.event;
        // The provider may read an id with leading zeros as the number it is: the same event.
        if (subjectKey("event", record.event_id) !== subjectKey("event", eventId)) {
          throw new UpstreamBadAnswerError(`the provider answered event ${record.event_id} for event ${eventId}`);
        }
        const fetchedAt = new Date(now());
        await storeQuietly("event", (db) => storeEvent(db, record, fetchedAt));
        return { dataJson: eventDataJson(canonical.event(record)), asOf: fetchedAt };
      },
    });

  const followers = async (query: FollowersQuery, context: LookupContext): Promise<LookupResult> =>
    lookup(context, {
      flightKey: `followers|${query.userId}|${query.offset}`,
      probe: async () => probeFollowers(await deps.db(), deps.cursors, query, freshness(deps.ttls.followersS, context)),
      fromStore: () => deps.store.followers(query, context),
      fetch: async (credentials) => {
        let providerQuery: Record<string, string> = { userid: query.userId };
        let providerNodeId: string | null = null;
        if (query.offset > 0) {
          const continuation = await providerCursorAt(await deps.db(), query.userId, query.offset);
          if (!continuation) {
            throw new UpstreamError(`no provider cursor for user ${query.userId} at offset ${query.offset}`);
          }
          providerNodeId = continuation.providerNodeId;
          providerQuery = { node_id: continuation.providerNodeId, cursor: continuation.providerCursor };
        }
        const answer = await deps.client.get(credentials, followersOperation.upstream.path, providerQuery);
        if (answer.kind === "not_found") return null;
        const parsed = providerFollowersSchema.safeParse(answer.data);
        if (!parsed.success) throw new UpstreamBadAnswerError(`invalid followers from the provider (${issuePath(parsed.error)})`);
        const data = parsed.data;
        // Our entries keep the contract's shape (cursor: null); pages continue by our end_cursor.
        const entries: FollowerEntry[] = data.followers.map((entry) => ({ node: entry.node, cursor: null }));
        const providerCursor = data.page_info?.end_cursor ?? data.followers.at(-1)?.cursor ?? null;
        const hasMore = (data.page_info?.has_next_page ?? false) && providerCursor !== null && entries.length > 0;
        const nodeId = data.node_id ?? providerNodeId ?? nodeIdFor(query.userId);
        const fetchedAt = new Date(now());
        await storeQuietly("followers", (db) =>
          storeFollowersPage(
            db,
            {
              userId: query.userId,
              offset: query.offset,
              entries,
              hasMore,
              next: hasMore && providerCursor !== null ? { providerNodeId: nodeId, providerCursor } : null,
            },
            fetchedAt,
          ),
        );
        const endCursor = hasMore ? deps.cursors.encode({ userId: query.userId, offset: query.offset + entries.length }) : null;
        return {
          dataJson: followersDataJson(entries.map(canonical.follower), nodeIdFor(query.userId), hasMore, endCursor),
          asOf: fetchedAt,
        };
      },
    });

  const publications = async (urn: string, page: number, context: LookupContext): Promise<LookupResult> =>
    lookup(context, {
      flightKey: `publications|${urn}|${page}`,
      probe: async () => probePublications(await deps.db(), { urn, page }, freshness(deps.ttls.publicationsS, context)),
      fromStore: () => deps.store.publications(urn, page, context),
      fetch: async (credentials) => {
        const answer = await deps.client.get(credentials, publicationsOperation.upstream.path, { urn, page: String(page) });
        if (answer.kind === "not_found") return null;
        const parsed = publicationsDataSchema.safeParse(answer.data);
        if (!parsed.success) throw new UpstreamBadAnswerError(`invalid publications from the provider (${issuePath(parsed.error)})`);
        const data = parsed.data;
        const fetchedAt = new Date(now());
        await storeQuietly("publications", (db) =>
          storePublicationsPage(db, { urn, page, total: data.total, hasMore: data.has_more, entries: data.data }, fetchedAt),
        );
        return {
          dataJson: publicationsDataJson(page, data.total, data.has_more, data.data.map(canonical.publication)),
          asOf: fetchedAt,
        };
      },
    });

  return {
    name: deps.mode,
    event,
    followers,
    publications,
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
