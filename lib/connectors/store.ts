import type { Queryable } from "@/lib/db/client";
import type { CursorCodec } from "./cursor";
import type { Connector, LookupResult } from "./types";

/**
 * The record store engine: one query per lookup (the source's own, lib/operations/<op>/source.ts),
 * answers kept in a small in-memory cache for a few seconds (records are read-only snapshots;
 * imports in this process clear it at once).
 */
type CacheEntry = { result: LookupResult; storedAt: number };

export type StoreConnector = Connector & { clearCache(): void };

export const createStoreConnector = (deps: {
  db: () => Promise<Queryable>;
  cursors: CursorCodec;
  cacheTtlMs: number;
  cacheEntries?: number;
}): StoreConnector => {
  const cache = new Map<string, CacheEntry>();
  const maxEntries = deps.cacheEntries ?? 5000;
  const tools = { cursors: deps.cursors };

  return {
    name: "store",
    lookup: async (source, params) => {
      const cacheKey = `${source.kind.cacheKind}|${source.key(params)}`;
      const hit = cache.get(cacheKey);
      if (hit && Date.now() - hit.storedAt < deps.cacheTtlMs) return hit.result;
      const answer = await source.fromStore(await deps.db(), params, tools);
      const result: LookupResult = answer === null ? { found: false } : { found: true, dataJson: answer.dataJson, asOf: answer.asOf };
      if (cache.size >= maxEntries) cache.clear();
      cache.set(cacheKey, { result, storedAt: Date.now() });
      return result;
    },
    clearCache: () => cache.clear(),
  };
};
