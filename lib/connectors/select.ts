import type { Db } from "@/lib/db/client";
import type { Env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { getProviderKeyView, recordProviderKeyError } from "./provider-keys";
import type { CursorCodec } from "./cursor";
import type { StoreConnector } from "./store";
import { createUpstreamClient, isClassified, isProviderFailure, type UpstreamKeyRejectedError } from "./upstream-client";
import { createProviderConfig } from "./upstream-config";
import { createSuppressionList, withSuppression, type SuppressionList } from "./suppression";
import { createUpstreamGuard } from "./upstream-resilience";
import { createUpstreamConnector, type UpstreamControl } from "./upstream";

/**
 * The connector a deployment answers lookups with (DATA_SOURCE): the store alone, or the
 * upstream provider behind its cache (optionally the store first). `upstream` is there for the
 * health check and the admin settings page; clearCache() is called after imports.
 */
export type DataConnector = StoreConnector & { readonly upstream?: UpstreamControl };

export type UpstreamSettings = Pick<
  Env,
  | "DATA_SOURCE"
  | "UPSTREAM_BASE_URL"
  | "UPSTREAM_API_KEY"
  | "UPSTREAM_KEY_MODE"
  | "UPSTREAM_TIMEOUT_MS"
  | "UPSTREAM_MAX_CONCURRENCY"
  | "UPSTREAM_RETRIES"
  | "UPSTREAM_MAX_RETRY_WAIT_MS"
  | "UPSTREAM_BREAKER_THRESHOLD"
  | "UPSTREAM_BREAKER_COOLDOWN_MS"
  | "CACHE_TTL_EVENTS_S"
  | "CACHE_TTL_FOLLOWERS_S"
  | "CACHE_TTL_PUBLICATIONS_S"
  | "CACHE_HIT_CREDITS"
>;

export const selectConnector = (deps: {
  settings: UpstreamSettings;
  db: () => Promise<Db>;
  cursors: CursorCodec;
  store: StoreConnector;
  /** Seals provider keys at rest: derivedKey("provider-keys") in the server. */
  sealKey: Buffer;
  fetch?: typeof fetch;
  now?: () => number;
  /** Suppressed subjects (lib/privacy): by default read from `db`. */
  suppressions?: SuppressionList;
}): DataConnector => {
  // Every lookup of every channel passes here: a suppressed subject is never looked up.
  const suppressions = deps.suppressions ?? createSuppressionList({ db: deps.db });
  const { settings } = deps;
  if (settings.DATA_SOURCE === "store") return withSuppression(deps.store, suppressions);

  const config = createProviderConfig({
    db: deps.db,
    sealKey: deps.sealKey,
    keyMode: settings.UPSTREAM_KEY_MODE,
    environment: { baseUrl: settings.UPSTREAM_BASE_URL, apiKey: settings.UPSTREAM_API_KEY },
    now: deps.now,
  });
  const onKeyRejected = (error: UpstreamKeyRejectedError) => {
    if (error.owner.kind !== "user") return;
    const { userId } = error.owner;
    config.invalidate(userId);
    void (async () => {
      const db = await deps.db();
      if (await getProviderKeyView(db, userId)) await recordProviderKeyError(db, userId, error.message);
    })().catch((failure: unknown) => log.warn("could not record a provider key refusal", { userId, error: describeError(failure) }));
  };
  const client = createUpstreamClient({
    timeoutMs: settings.UPSTREAM_TIMEOUT_MS,
    retries: settings.UPSTREAM_RETRIES,
    maxRetryWaitMs: settings.UPSTREAM_MAX_RETRY_WAIT_MS,
    guard: createUpstreamGuard({
      threshold: settings.UPSTREAM_BREAKER_THRESHOLD,
      cooldownMs: settings.UPSTREAM_BREAKER_COOLDOWN_MS,
      maxConcurrency: settings.UPSTREAM_MAX_CONCURRENCY,
      isFailure: isProviderFailure,
      isValue: isClassified,
    }),
    fetch: deps.fetch,
    now: deps.now,
    onKeyRejected,
  });
  const upstream = createUpstreamConnector({
    db: deps.db,
    cursors: deps.cursors,
    client,
    config,
    mode: settings.DATA_SOURCE,
    store: deps.store,
    ttls: {
      eventsS: settings.CACHE_TTL_EVENTS_S,
      followersS: settings.CACHE_TTL_FOLLOWERS_S,
      publicationsS: settings.CACHE_TTL_PUBLICATIONS_S,
    },
    cacheHitCredits: settings.CACHE_HIT_CREDITS,
    now: deps.now,
  });
  return withSuppression(upstream, suppressions);
};
