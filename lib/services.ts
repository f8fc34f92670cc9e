import { env } from "@/lib/env";
import { getDb, type Queryable } from "@/lib/database";
import { createAuthenticator, type Authenticator } from "@/lib/keys/authenticate";
import { onKeyChanged } from "@/lib/keys/events";
import { connectKeyChangesOverRedis } from "@/lib/keys/events-redis";
import { createTokenVerifier } from "@/lib/keys/tokens";
import { createRateLimiter, createRedisClient, type RateLimiter } from "@/lib/ratelimit/limiter";
import { createSettler, type Settler } from "@/lib/credits/settle";
import { createAccountReader, type AccountReader } from "@/lib/usage/account-reader";
import { createCursorCodec, type CursorCodec } from "@/lib/connectors/cursor";
import { createStoreConnector } from "@/lib/connectors/store";
import { selectConnector, type DataConnector } from "@/lib/connectors/select";
import { createSuppressionList } from "@/lib/connectors/suppression";
import { suppressedSubjects } from "@/lib/privacy/suppressions";
import { authSecret, derivedKey } from "@/lib/security/secrets";

/**
 * The process-wide wiring of the request pipeline, built once on first use. Kept on globalThis
 * because Next may load a module once per route bundle; state here (caches, limiter windows,
 * the settle queue) must be shared by all routes of the process.
 */
export type Services = {
  db: () => Promise<Queryable>;
  authenticator: Authenticator;
  limiter: RateLimiter;
  settler: Settler;
  /** GET /v1/account's balance reads, grouped (lib/usage/account-reader.ts). */
  accounts: AccountReader;
  connector: DataConnector;
  cursors: CursorCodec;
  eventSiteHosts: readonly string[];
};

const KEY_CACHE_TTL_MS = 1000;
const RECORD_CACHE_TTL_MS = 5000;

const build = async (): Promise<Services> => {
  const config = env();
  const db = getDb;
  const cursors = createCursorCodec(derivedKey("follower-cursor"));
  const authenticator = createAuthenticator({ db, verify: createTokenVerifier(authSecret()), ttlMs: KEY_CACHE_TTL_MS });
  onKeyChanged((keyId) => (keyId === null ? authenticator.invalidateAll() : authenticator.invalidate(keyId)));
  const redis = config.REDIS_URL ? await createRedisClient(config.REDIS_URL) : undefined;
  if (config.REDIS_URL && redis) {
    connectKeyChangesOverRedis(redis, await createRedisClient(config.REDIS_URL, { subscriber: true }));
  }
  return {
    db,
    authenticator,
    limiter: createRateLimiter({ redis }),
    settler: createSettler(db, { timeoutMs: config.DB_TIMEOUT_MS }),
    accounts: createAccountReader(db),
    connector: selectConnector({
      settings: config,
      db,
      cursors,
      store: createStoreConnector({ db, cursors, cacheTtlMs: RECORD_CACHE_TTL_MS }),
      sealKey: derivedKey("provider-keys"),
      // Every lookup passes the suppression guard; lib/privacy says who is suppressed.
      suppressions: createSuppressionList({ db, read: suppressedSubjects }),
    }),
    cursors,
    eventSiteHosts: config.EVENTSITE_HOSTS,
  };
};

const holder = globalThis as typeof globalThis & { __socialLookupServices?: Promise<Services> };

export const services = (): Promise<Services> => {
  holder.__socialLookupServices ??= build().catch((error: unknown) => {
    holder.__socialLookupServices = undefined;
    throw error;
  });
  return holder.__socialLookupServices;
};
