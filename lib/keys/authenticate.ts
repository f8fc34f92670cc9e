import type { Queryable } from "@/lib/db/client";
import { type KeyCredentials, loadCredentials } from "./repository";
import { hashToken, sameHash } from "./tokens";

/** Why a request is not authenticated: no bearer token at all, or one that is not (or no longer) good. */
export type AuthFailure = "key_missing" | "key_invalid";

export type AuthOutcome = { ok: true; key: KeyCredentials } | { ok: false; reason: AuthFailure };

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of an `Authorization: Bearer <token>` header, or null when there is none. */
export const bearerToken = (header: string | null): string | null => BEARER.exec(header ?? "")?.[1] ?? null;

export type Authenticator = {
  authenticate(authorization: string | null): Promise<AuthOutcome>;
  /** Forgets a key at once (after revoke, roll, disable) so the next request reloads it. */
  invalidate(keyId: string): void;
  invalidateAll(): void;
};

/**
 * Checks a bearer token: our signature (memoised), then the key record (cached for at most
 * `ttlMs`, so a revocation made elsewhere takes effect within that time; here, at once through
 * invalidate), then the token hash in constant time.
 */
export const createAuthenticator = (deps: {
  db: () => Promise<Queryable>;
  verify: (token: string) => Promise<string | null>;
  ttlMs: number;
  now?: () => number;
}): Authenticator => {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { key: KeyCredentials | null; loadedAt: number }>();
  const pending = new Map<string, Promise<KeyCredentials | null>>();
  // Bumped by every invalidation: a load that started before it must not refill the cache.
  let epoch = 0;

  const load = async (keyId: string): Promise<KeyCredentials | null> => {
    const cached = cache.get(keyId);
    if (cached && now() - cached.loadedAt < deps.ttlMs) return cached.key;
    let inFlight = pending.get(keyId);
    if (!inFlight) {
      const loadedAt = now();
      const startedEpoch = epoch;
      inFlight = deps
        .db()
        .then((db) => loadCredentials(db, keyId))
        .then((key) => {
          if (cache.size > 50_000) cache.clear();
          if (startedEpoch === epoch) cache.set(keyId, { key, loadedAt });
          return key;
        })
        .finally(() => pending.delete(keyId));
      pending.set(keyId, inFlight);
    }
    return inFlight;
  };

  return {
    authenticate: async (authorization) => {
      const token = bearerToken(authorization);
      if (token === null) return { ok: false, reason: "key_missing" };
      const keyId = await deps.verify(token);
      if (keyId === null) return { ok: false, reason: "key_invalid" };
      const key = await load(keyId);
      if (!key || key.status !== "active") return { ok: false, reason: "key_invalid" };
      const at = now();
      if (key.expiresAt && key.expiresAt.getTime() <= at) return { ok: false, reason: "key_invalid" };
      const hash = hashToken(token);
      const current = sameHash(hash, key.tokenHash);
      const previous =
        key.previousTokenHash !== null &&
        key.previousTokenExpiresAt !== null &&
        key.previousTokenExpiresAt.getTime() > at &&
        sameHash(hash, key.previousTokenHash);
      return current || previous ? { ok: true, key } : { ok: false, reason: "key_invalid" };
    },
    invalidate: (keyId) => {
      epoch += 1;
      cache.delete(keyId);
      pending.delete(keyId);
    },
    invalidateAll: () => {
      epoch += 1;
      cache.clear();
      pending.clear();
    },
  };
};
