import dns from "node:dns/promises";
import { z } from "zod";
import { DomainError } from "@/lib/errors";
import type { Db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { recordKinds } from "@/lib/records/kinds";
import { hostVerdict, isAllowedAddress, PUBLIC_ONLY } from "@/lib/security/outbound";
import { derivedKey } from "@/lib/security/secrets";
import { deleteProviderKey, getProviderKeyView, loadUpstreamSettings, saveProviderKey, saveUpstreamSettings } from "./provider-keys";
import { checkProviderKey, type UpstreamHealth } from "./upstream-client";
import type { DataConnector } from "./select";
import { createProviderConfig, type ConfigSource, type KeyMode } from "./upstream-config";
import type { BreakerSnapshot } from "./upstream-resilience";

/**
 * The console's use cases around the upstream provider: a user's own provider key
 * (/api/me/provider-key) and the admin's view and settings of the connection
 * (/api/admin/upstream). Failures are DomainErrors with a message fit for the page.
 */

/**
 * The process's connector, passed in by the route (the process's services): a changed key or
 * setting invalidates its provider config, and the admin's view reads its live status.
 */
export type UpstreamAdminDeps = { connector: () => Promise<DataConnector> };

const sealKey = () => derivedKey("provider-keys");

const providerKey = z
  .string()
  .trim()
  .min(8, "must be at least 8 characters")
  .max(512, "must be at most 512 characters")
  .regex(/^\S+$/, "must not contain spaces");

export const providerKeyBody = z.object({ key: providerKey });

export const upstreamSettingsBody = z.object({
  baseUrl: z.union([z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }), z.null()]).optional(),
  apiKey: z.union([providerKey, z.null()]).optional(),
  /** false: store without the check call (e.g. while the provider is down). */
  check: z.boolean().optional(),
});

export type ProviderKeyState = {
  keyMode: KeyMode;
  /** Whether lookups of this user need their own provider key (per-user mode, upstream data source). */
  required: boolean;
  configured: boolean;
  hint: string | null;
  validatedAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
};

export const providerKeyState = async (db: Db, userId: string): Promise<ProviderKeyState> => {
  const config = env();
  const view = await getProviderKeyView(db, userId);
  return {
    keyMode: config.UPSTREAM_KEY_MODE,
    required: config.UPSTREAM_KEY_MODE === "per-user" && config.DATA_SOURCE !== "store",
    configured: view !== null,
    hint: view?.hint ?? null,
    validatedAt: view?.validatedAt.toISOString() ?? null,
    lastError: view?.lastError ?? null,
    lastErrorAt: view?.lastErrorAt?.toISOString() ?? null,
  };
};

const baseUrlFor = async (db: Db): Promise<string | null> =>
  env().UPSTREAM_BASE_URL ?? (await loadUpstreamSettings(db, sealKey())).baseUrl;

const invalidateConfig = async (deps: UpstreamAdminDeps, userId?: string) => {
  (await deps.connector()).upstream?.config.invalidate(userId);
};

const checkOrFail = async (baseUrl: string, key: string) => {
  const check = await checkProviderKey({ timeoutMs: env().UPSTREAM_TIMEOUT_MS }, baseUrl, key);
  if (!check.ok) {
    throw new DomainError(`provider_key_${check.reason}`, check.message);
  }
};

/** Checks the key with the provider (one call, see checkProviderKey) and stores it sealed. */
export const setOwnProviderKey = async (db: Db, userId: string, key: string, deps: UpstreamAdminDeps): Promise<ProviderKeyState> => {
  const baseUrl = await baseUrlFor(db);
  if (baseUrl === null) {
    throw new DomainError("upstream_not_configured", "No upstream provider is configured yet; ask an administrator.");
  }
  await checkOrFail(baseUrl, key);
  await saveProviderKey(db, sealKey(), userId, key);
  await invalidateConfig(deps, userId);
  return providerKeyState(db, userId);
};

export const removeOwnProviderKey = async (db: Db, userId: string, deps: UpstreamAdminDeps): Promise<ProviderKeyState> => {
  await deleteProviderKey(db, userId);
  await invalidateConfig(deps, userId);
  return providerKeyState(db, userId);
};

export type UpstreamAdminView = {
  dataSource: "store" | "upstream" | "store-then-upstream";
  keyMode: KeyMode;
  baseUrl: { value: string | null; source: ConfigSource };
  sharedKey: { hint: string | null; source: ConfigSource };
  /** "absent" when DATA_SOURCE=store; otherwise the latest shared-key call's outcome. */
  status: UpstreamHealth | "absent";
  lastError: { at: string; kind: UpstreamHealth; message: string } | null;
  lastSuccessAt: string | null;
  breaker: BreakerSnapshot | null;
  concurrency: { max: number; inUse: number; waiting: number } | null;
  /** Each kind of record's cache TTL by its export name ("followers"), in the kinds table's order. */
  cache: { ttlS: Record<string, number>; hitCredits: "full" | "free" };
  usersWithProviderKeys: number;
  /** A sentence for the admin banner when something needs attention; null when all is well. */
  banner: string | null;
  /** Set when the base URL points at this machine or a private network (admins may; users may not). */
  baseUrlWarning: string | null;
};

const LOOKUP_WAIT_MS = 1000;

/** Whether a base URL reaches inside: an address literal, localhost, or a name resolving there. */
const pointsInside = async (baseUrl: string): Promise<boolean> => {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  const verdict = hostVerdict(url, PUBLIC_ONLY);
  if (verdict !== "name") return verdict === "refused";
  const resolved = await Promise.race([
    dns.lookup(url.hostname, { all: true }).catch(() => []),
    new Promise<[]>((resolve) => setTimeout(() => resolve([]), LOOKUP_WAIT_MS).unref()),
  ]);
  return resolved.some((entry) => !isAllowedAddress(entry.address, PUBLIC_ONLY));
};

export const baseUrlWarning = async (baseUrl: string | null): Promise<string | null> =>
  baseUrl !== null && (await pointsInside(baseUrl))
    ? `The provider base URL ${new URL(baseUrl).host} points inside this server's own networks. ` +
      "That is right only for a provider you run yourself: lookups send the provider key there."
    : null;

const bannerFor = (view: Omit<UpstreamAdminView, "banner" | "baseUrlWarning">): string | null => {
  if (view.dataSource === "store") return null;
  if (view.baseUrl.value === null) return "Lookups go upstream, but no provider base URL is set: every lookup that misses the cache fails.";
  if (view.keyMode === "shared" && view.sharedKey.hint === null) {
    return "Lookups go upstream, but no shared provider key is set: every lookup that misses the cache fails.";
  }
  if (view.breaker?.state === "open") {
    return `The provider is failing; lookups that miss the cache fail fast until ${view.breaker.openUntil ?? "the cool-down ends"}.`;
  }
  if (view.status === "key_rejected") return `The provider refused the shared provider key: ${view.lastError?.message ?? "see the server log"}.`;
  if (view.status === "unavailable" || view.status === "bad_answer") {
    return `The last upstream call failed: ${view.lastError?.message ?? "see the server log"}.`;
  }
  return null;
};

export const upstreamAdminView = async (db: Db, deps: UpstreamAdminDeps): Promise<UpstreamAdminView> => {
  const config = env();
  const upstream = (await deps.connector()).upstream;
  const described = await (upstream?.config ??
    createProviderConfig({
      db: async () => db,
      sealKey: sealKey(),
      keyMode: config.UPSTREAM_KEY_MODE,
      environment: { baseUrl: config.UPSTREAM_BASE_URL, apiKey: config.UPSTREAM_API_KEY },
    })
  ).describe();
  const status = upstream?.status();
  const counted = await db.query<{ total: number }>("SELECT count(*)::int AS total FROM provider_keys");
  const view: Omit<UpstreamAdminView, "banner" | "baseUrlWarning"> = {
    dataSource: config.DATA_SOURCE,
    keyMode: config.UPSTREAM_KEY_MODE,
    baseUrl: described.baseUrl,
    sharedKey: described.sharedKey,
    status: status?.status ?? "absent",
    lastError: status?.lastError ?? null,
    lastSuccessAt: status?.lastSuccessAt ?? null,
    breaker: status?.breaker ?? null,
    concurrency: status?.concurrency ?? null,
    cache: {
      ttlS: Object.fromEntries(recordKinds.map((kind) => [kind.exportName, config[kind.ttlVariable]])),
      hitCredits: config.CACHE_HIT_CREDITS,
    },
    usersWithProviderKeys: counted[0]?.total ?? 0,
  };
  return { ...view, banner: bannerFor(view), baseUrlWarning: await baseUrlWarning(view.baseUrl.value) };
};

/** Saves the admin's base URL and shared key (environment variables win and cannot be changed here). */
export const updateUpstreamSettings = async (
  db: Db,
  actorId: string,
  body: z.infer<typeof upstreamSettingsBody>,
  deps: UpstreamAdminDeps,
): Promise<UpstreamAdminView> => {
  const config = env();
  if (body.baseUrl !== undefined && config.UPSTREAM_BASE_URL) {
    throw new DomainError("set_by_environment", "The base URL is set by the environment (UPSTREAM_BASE_URL).");
  }
  if (body.apiKey !== undefined && config.UPSTREAM_API_KEY) {
    throw new DomainError("set_by_environment", "The shared provider key is set by the environment (UPSTREAM_API_KEY).");
  }
  const stored = await loadUpstreamSettings(db, sealKey());
  const baseUrl = body.baseUrl === undefined ? (config.UPSTREAM_BASE_URL ?? stored.baseUrl) : body.baseUrl;
  const apiKey = body.apiKey === undefined ? (config.UPSTREAM_API_KEY ?? stored.apiKey) : body.apiKey;
  const changesConnection = typeof body.baseUrl === "string" || typeof body.apiKey === "string";
  if (body.check !== false && changesConnection && baseUrl !== null && apiKey !== null) await checkOrFail(baseUrl, apiKey);
  await saveUpstreamSettings(db, sealKey(), { baseUrl: body.baseUrl, apiKey: body.apiKey }, actorId);
  await invalidateConfig(deps);
  return upstreamAdminView(db, deps);
};
