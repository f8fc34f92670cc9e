import type { Queryable } from "@/lib/db/client";
import { eventDataJson, followersDataJson, publicationsDataJson } from "./answer-json";
import type { CursorCodec } from "./cursor";
import { FOLLOWERS_PAGE_SIZE } from "@/lib/operations/followers";
import { PUBLICATIONS_PAGE_SIZE } from "@/lib/operations/publications";
import type { Connector, LookupResult } from "./types";

/**
 * The record store connector: one query per lookup, answers kept in a small in-memory cache for
 * a few seconds (records are read-only snapshots; imports in this process clear it at once).
 */
type CacheEntry = { result: LookupResult; storedAt: number };

export type StoreConnector = Connector & { clearCache(): void };

/**
 * A list's owner row joined with one page of its entries (`sql` selects the owner's columns and
 * `record`, NULL where the page is past the list's end): the owner, and the page's record texts.
 * Null for an unknown owner.
 */
const ownerPage = async <Owner>(db: Queryable, sql: string, params: unknown[]): Promise<{ owner: Owner; entries: string[] } | null> => {
  const rows = await db.query<Owner & { record: string | null }>(sql, params);
  const first = rows[0];
  if (!first) return null;
  return { owner: first, entries: rows.flatMap((row) => (row.record === null ? [] : [row.record])) };
};

export const createStoreConnector = (deps: {
  db: () => Promise<Queryable>;
  cursors: CursorCodec;
  cacheTtlMs: number;
  cacheEntries?: number;
}): StoreConnector => {
  const cache = new Map<string, CacheEntry>();
  const maxEntries = deps.cacheEntries ?? 5000;

  const cached = async (cacheKey: string, load: () => Promise<LookupResult>): Promise<LookupResult> => {
    const hit = cache.get(cacheKey);
    if (hit && Date.now() - hit.storedAt < deps.cacheTtlMs) return hit.result;
    const result = await load();
    if (cache.size >= maxEntries) cache.clear();
    cache.set(cacheKey, { result, storedAt: Date.now() });
    return result;
  };

  const event = (eventId: string) =>
    cached(`e:${eventId}`, async () => {
      const rows = await (await deps.db()).query<{ record: string; fetched_at: Date | string }>(
        "SELECT record::text AS record, fetched_at FROM events WHERE event_id = $1",
        [eventId],
      );
      const row = rows[0];
      if (!row) return { found: false };
      return { found: true, dataJson: eventDataJson(row.record), asOf: new Date(row.fetched_at) };
    });

  const followers = ({ userId, offset }: { userId: string; offset: number }) =>
    cached(`f:${userId}:${offset}`, async () => {
      const stored = await ownerPage<{ node_id: string; follower_count: number; fetched_at: Date | string }>(
        await deps.db(),
        `SELECT u.node_id, u.follower_count, u.fetched_at, f.record::text AS record
         FROM pin_users u
         LEFT JOIN pin_followers f ON f.user_id = u.user_id AND f.position >= $2 AND f.position < $2 + $3
         WHERE u.user_id = $1 ORDER BY f.position`,
        [userId, offset, FOLLOWERS_PAGE_SIZE],
      );
      if (!stored) return { found: false };
      const { owner, entries } = stored;
      const nextOffset = offset + FOLLOWERS_PAGE_SIZE;
      const hasNext = nextOffset < owner.follower_count;
      const endCursor = hasNext ? deps.cursors.encode({ userId, offset: nextOffset }) : null;
      return {
        found: true,
        dataJson: followersDataJson(entries, owner.node_id, hasNext, endCursor),
        asOf: new Date(owner.fetched_at),
      };
    });

  const publications = (urn: string, page: number) =>
    cached(`p:${urn}:${page}`, async () => {
      const offset = (page - 1) * PUBLICATIONS_PAGE_SIZE;
      const stored = await ownerPage<{ publication_count: number; fetched_at: Date | string }>(
        await deps.db(),
        `SELECT p.publication_count, p.fetched_at, pub.record::text AS record
         FROM profiles p
         LEFT JOIN publications pub ON pub.urn = p.urn AND pub.position >= $2 AND pub.position < $2 + $3
         WHERE p.urn = $1 ORDER BY pub.position`,
        [urn, offset, PUBLICATIONS_PAGE_SIZE],
      );
      if (!stored) return { found: false };
      const { owner, entries } = stored;
      const total = owner.publication_count;
      return {
        found: true,
        dataJson: publicationsDataJson(page, total, offset + PUBLICATIONS_PAGE_SIZE < total, entries),
        asOf: new Date(owner.fetched_at),
      };
    });

  return { name: "store", event, followers, publications, clearCache: () => cache.clear() };
};
