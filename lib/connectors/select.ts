import type { Db } from "@/lib/db/client";
import { cacheTtlSeconds, type Env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import type { recordKinds } from "@/lib/records/kinds";
import { getProviderKeyView, recordProviderKeyError } from "./provider-keys";
import type { CursorCodec } from "./cursor";
import type { StoreConnector } from "./store";
import { createUpstreamClient, isClassified, isProviderFailure, type UpstreamKeyRejectedError } from "./upstream-client";
import { createProviderConfig } from "./upstream-config";
import { withSuppression, type SuppressionList } from "./suppression";
import { trackCircuit } from "./upstream-metrics";
import { createUpstreamGuard } from "./upstream-resilience";
import { createUpstreamConnector, type CacheTtlOf, type UpstreamControl } from "./upstream";

/**
 * The connector a deployment answers lookups with (DATA_SOURCE): the store alone, or the
 * upstream provider behind its cache (optionally the store first). `upstream` is there for the
 * health check and the admin settings page; clearCache() is called after imports.
 */
export type DataConnector = StoreConnector & { readonly upstream?: UpstreamControl };

/** Each record kind's cache TTL setting (lib/records/kinds.ts): lib/env.ts must declare every one. */
type CacheTtlVariable = (typeof recordKinds)[number]["ttlVariable"];

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
  | CacheTtlVariable
  | "CACHE_HIT_CREDITS"
>;

/**
 * A kind's cache TTL: the setting its ttlVariable names (lib/env.ts reads and checks them), or,
 * for a kind that declares its default with itself, that variable read by lib/env.ts cacheTtlSeconds.
 */
const cacheTtlOf = (settings: UpstreamSettings): CacheTtlOf => {
  const byName = new Map<string, unknown>(Object.entries(settings));
  return (kind) => {
    const ttlS = byName.get(kind.ttlVariable) ?? (kind.ttlDefaultS === undefined ? undefined : cacheTtlSeconds(kind.ttlVariable, kind.ttlDefaultS));
    if (typeof ttlS !== "number") throw new Error(`no cache TTL setting ${kind.ttlVariable} for record kind ${kind.subject}`);
    return ttlS;
  };
};

export const selectConnector = (deps: {
  settings: UpstreamSettings;
  db: () => Promise<Db>;
  cursors: CursorCodec;
  store: StoreConnector;
  /** Seals provider keys at rest: derivedKey("provider-keys") in the server. */
  sealKey: Buffer;
  fetch?: typeof fetch;
  now?: () => number;
  /** Suppressed subjects, read by lib/privacy (lib/services.ts wires them). */
  suppressions: SuppressionList;
}): DataConnector => {
  // Every lookup of every channel passes here: a suppressed subject is never looked up.
  const { settings, suppressions } = deps;
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
  const guard = createUpstreamGuard({
    threshold: settings.UPSTREAM_BREAKER_THRESHOLD,
    cooldownMs: settings.UPSTREAM_BREAKER_COOLDOWN_MS,
    maxConcurrency: settings.UPSTREAM_MAX_CONCURRENCY,
    isFailure: isProviderFailure,
    isValue: isClassified,
  });
  trackCircuit(guard);
  const client = createUpstreamClient({
    timeoutMs: settings.UPSTREAM_TIMEOUT_MS,
    retries: settings.UPSTREAM_RETRIES,
    maxRetryWaitMs: settings.UPSTREAM_MAX_RETRY_WAIT_MS,
    guard,
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
    ttlOf: cacheTtlOf(settings),
    cacheHitCredits: settings.CACHE_HIT_CREDITS,
    now: deps.now,
  });
  return withSuppression(upstream, suppressions);
};
