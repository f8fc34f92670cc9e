import type { Queryable } from "@/lib/db/client";
import { loadProviderKey, loadUpstreamSettings, providerKeyHint } from "./provider-keys";
import { NoProviderKeyError, UpstreamNotConfiguredError, type ProviderCredentials } from "./upstream-client";

/**
 * Which base URL and provider key a lookup goes upstream with. Environment variables win over
 * the admin's settings; in per-user mode the key is the API key owner's own. Read from the
 * database at most every few seconds per process (settings changed here apply at once through
 * invalidate(); on other instances within CONFIG_TTL_MS).
 */
export type KeyMode = "shared" | "per-user";

export type ConfigSource = "environment" | "settings" | null;

export type UpstreamConfigView = {
  keyMode: KeyMode;
  baseUrl: { value: string | null; source: ConfigSource };
  sharedKey: { hint: string | null; source: ConfigSource };
};

export type ProviderConfig = {
  readonly keyMode: KeyMode;
  credentialsFor(keyOwnerId: string | null): Promise<ProviderCredentials>;
  /** Forget cached settings (after an admin change) or one user's key (after they change it). */
  invalidate(userId?: string): void;
  describe(): Promise<UpstreamConfigView>;
};

const CONFIG_TTL_MS = 10_000;
const MAX_CACHED_USER_KEYS = 10_000;

export const createProviderConfig = (deps: {
  db: () => Promise<Queryable>;
  sealKey: Buffer;
  keyMode: KeyMode;
  environment: { baseUrl?: string; apiKey?: string };
  now?: () => number;
}): ProviderConfig => {
  const now = deps.now ?? Date.now;
  let settings: { baseUrl: string | null; apiKey: string | null; loadedAt: number } | null = null;
  const userKeys = new Map<string, { key: string | null; loadedAt: number }>();

  const loadSettings = async () => {
    if (settings && now() - settings.loadedAt < CONFIG_TTL_MS) return settings;
    const stored = await loadUpstreamSettings(await deps.db(), deps.sealKey);
    settings = { baseUrl: stored.baseUrl, apiKey: stored.apiKey, loadedAt: now() };
    return settings;
  };

  const userKey = async (userId: string): Promise<string | null> => {
    const cached = userKeys.get(userId);
    if (cached && now() - cached.loadedAt < CONFIG_TTL_MS) return cached.key;
    const key = await loadProviderKey(await deps.db(), deps.sealKey, userId);
    if (userKeys.size >= MAX_CACHED_USER_KEYS) userKeys.clear();
    userKeys.set(userId, { key, loadedAt: now() });
    return key;
  };

  const baseUrl = async (): Promise<string | null> => deps.environment.baseUrl ?? (await loadSettings()).baseUrl;

  return {
    keyMode: deps.keyMode,
    credentialsFor: async (keyOwnerId) => {
      const url = await baseUrl();
      if (url === null) throw new UpstreamNotConfiguredError("no upstream base URL: set UPSTREAM_BASE_URL or the admin settings");
      if (deps.keyMode === "per-user") {
        if (keyOwnerId === null) throw new NoProviderKeyError(null);
        const key = await userKey(keyOwnerId);
        if (key === null) throw new NoProviderKeyError(keyOwnerId);
        return { baseUrl: url, apiKey: key, owner: { kind: "user", userId: keyOwnerId } };
      }
      const key = deps.environment.apiKey ?? (await loadSettings()).apiKey;
      if (key === null) throw new UpstreamNotConfiguredError("no shared provider key: set UPSTREAM_API_KEY or the admin settings");
      return { baseUrl: url, apiKey: key, owner: { kind: "shared" } };
    },
    invalidate: (userId) => {
      if (userId === undefined) {
        settings = null;
        userKeys.clear();
      } else userKeys.delete(userId);
    },
    describe: async () => {
      const stored = await loadSettings();
      const { environment } = deps;
      return {
        keyMode: deps.keyMode,
        baseUrl: environment.baseUrl
          ? { value: environment.baseUrl, source: "environment" }
          : { value: stored.baseUrl, source: stored.baseUrl === null ? null : "settings" },
        sharedKey: environment.apiKey
          ? { hint: providerKeyHint(environment.apiKey), source: "environment" }
          : { hint: stored.apiKey === null ? null : providerKeyHint(stored.apiKey), source: stored.apiKey === null ? null : "settings" },
      };
    },
  };
};
