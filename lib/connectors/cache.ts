import { followerEntrySchema, publicationSchema, type EventRecord, type FollowerEntry, type Publication } from "@/lib/records/records";
import type { Db, Queryable } from "@/lib/db/client";
import { eventDataJson, followersDataJson, publicationsDataJson } from "./answer-json";
import type { CursorCodec } from "./cursor";
import { nodeIdFor } from "@/lib/records/node-id";
import { eventJson, followerJson, publicationJson, upsertEvents, upsertFollowerList, upsertPublicationList } from "./store-records";

/**
 * The upstream cache. Answers fetched from the provider are stored as records (source
 * "upstream") through store-records.ts, like imports; a row of upstream_pages per fetched page
 * records when it was fetched and where its entries sit in the stored list. A page is served
 * from the cache while its row is younger than the operation's TTL and the subject's records are
 * still upstream's (an import of the same subject replaces them and ends their cache life).
 *
 * Lists are stored as the contiguous prefix of pages fetched so far: page k is stored only when
 * page k-1 is, by rewriting the list (prefix + page), because the record writers replace whole
 * lists. Pages past MAX_CACHED_LIST_POSITIONS, or fetched out of order, are served but not stored.
 *
 * The answers' JSON comes from answer-json.ts for hits and misses alike, so both are byte-identical.
 */
const MAX_CACHED_LIST_POSITIONS = 5000;

const UPSTREAM_SOURCE = "upstream";

export type CachedPage = { dataJson: string; asOf: Date };

/** What the store holds for a subject: its records' source (null: nothing) and a fresh cached page. */
export type CacheProbe = { storeSource: string | null; fresh: CachedPage | null };


type PageRow = {
  source: string;
  list_count: number;
  fetched_at: Date | string | null;
  start_position: number | null;
  entry_count: number | null;
  has_more: boolean | null;
  total: number | null;
};

type Freshness = { ttlMs: number; now: number };

/** Where each kind of list is stored: its owners (with the list's length) and its entries. */
const FOLLOWER_ENTRIES = {
  kind: "followers",
  owners: "pin_users",
  countColumn: "follower_count",
  table: "pin_followers",
  ownerColumn: "user_id",
  parse: (value: unknown) => followerEntrySchema.parse(value),
} as const;
const PUBLICATION_ENTRIES = {
  kind: "publications",
  owners: "profiles",
  countColumn: "publication_count",
  table: "publications",
  ownerColumn: "urn",
  parse: (value: unknown) => publicationSchema.parse(value),
} as const;

/** A list's owner (its source and length) with the cached page `page` of the list if one is recorded; undefined for an unknown owner. */
const listPageRow = async (db: Queryable, list: typeof FOLLOWER_ENTRIES | typeof PUBLICATION_ENTRIES, owner: string, page: number) =>
  (
    await db.query<PageRow>(
      `SELECT o.source, o.${list.countColumn} AS list_count, p.fetched_at, p.start_position, p.entry_count, p.has_more, p.total
       FROM ${list.owners} o
       LEFT JOIN upstream_pages p ON p.kind = '${list.kind}' AND p.subject = o.${list.ownerColumn} AND p.page = $2
       WHERE o.${list.ownerColumn} = $1`,
      [owner, page],
    )
  )[0];

const isFresh = (fetchedAt: Date | string | null, freshness: Freshness): fetchedAt is Date | string =>
  fetchedAt !== null && freshness.now - new Date(fetchedAt).getTime() < freshness.ttlMs;

/** A cached list page is servable when its row is fresh and its entries are still stored. */
const servablePage = (row: PageRow, freshness: Freshness) => {
  if (row.source !== UPSTREAM_SOURCE || !isFresh(row.fetched_at, freshness)) return null;
  if (row.start_position === null || row.entry_count === null) return null;
  if (row.start_position + row.entry_count > row.list_count) return null;
  return { fetchedAt: new Date(row.fetched_at), start: row.start_position, count: row.entry_count, hasMore: row.has_more ?? false, total: row.total };
};

const readRecords = async (
  db: Queryable,
  table: "pin_followers" | "publications",
  ownerColumn: "user_id" | "urn",
  owner: string,
  start: number,
  count: number,
): Promise<string[]> => {
  if (count === 0) return [];
  const rows = await db.query<{ record: string }>(
    `SELECT record::text AS record FROM ${table} WHERE ${ownerColumn} = $1 AND position >= $2 AND position < $3 ORDER BY position`,
    [owner, start, start + count],
  );
  return rows.map((row) => row.record);
};

/**
 * The page a probe found, with its entries, when it can be served: fresh from upstream and its
 * entries all still stored; null otherwise.
 */
const servedPage = async (
  db: Queryable,
  row: PageRow,
  list: { table: "pin_followers" | "publications"; ownerColumn: "user_id" | "urn"; owner: string },
  freshness: Freshness,
) => {
  const page = servablePage(row, freshness);
  if (!page) return null;
  const entries = await readRecords(db, list.table, list.ownerColumn, list.owner, page.start, page.count);
  return entries.length === page.count ? { ...page, entries } : null;
};

export const probeEvent = async (db: Queryable, eventId: string, freshness: Freshness): Promise<CacheProbe> => {
  const rows = await db.query<{ source: string; record: string; fetched_at: Date | string | null }>(
    `SELECT e.source, e.record::text AS record, p.fetched_at FROM events e
     LEFT JOIN upstream_pages p ON p.kind = 'event' AND p.subject = e.event_id AND p.page = 0
     WHERE e.event_id = $1`,
    [eventId],
  );
  const row = rows[0];
  if (!row) return { storeSource: null, fresh: null };
  if (row.source !== UPSTREAM_SOURCE || !isFresh(row.fetched_at, freshness)) return { storeSource: row.source, fresh: null };
  return { storeSource: row.source, fresh: { dataJson: eventDataJson(row.record), asOf: new Date(row.fetched_at) } };
};

export const probeFollowers = async (
  db: Queryable,
  cursors: CursorCodec,
  query: { userId: string; offset: number },
  freshness: Freshness,
): Promise<CacheProbe> => {
  const row = await listPageRow(db, FOLLOWER_ENTRIES, query.userId, query.offset);
  if (!row) return { storeSource: null, fresh: null };
  const page = await servedPage(db, row, { ...FOLLOWER_ENTRIES, owner: query.userId }, freshness);
  if (!page) return { storeSource: row.source, fresh: null };
  const endCursor = page.hasMore ? cursors.encode({ userId: query.userId, offset: query.offset + page.count }) : null;
  return {
    storeSource: row.source,
    fresh: { dataJson: followersDataJson(page.entries, nodeIdFor(query.userId), page.hasMore, endCursor), asOf: page.fetchedAt },
  };
};

export const probePublications = async (db: Queryable, query: { urn: string; page: number }, freshness: Freshness): Promise<CacheProbe> => {
  const row = await listPageRow(db, PUBLICATION_ENTRIES, query.urn, query.page);
  if (!row) return { storeSource: null, fresh: null };
  // A publication page is stored with its total; one without cannot be answered from the cache.
  const page = row.total === null ? null : await servedPage(db, row, { ...PUBLICATION_ENTRIES, owner: query.urn }, freshness);
  if (!page || page.total === null) return { storeSource: row.source, fresh: null };
  return {
    storeSource: row.source,
    fresh: { dataJson: publicationsDataJson(query.page, page.total, page.hasMore, page.entries), asOf: page.fetchedAt },
  };
};

type StoredPage = { kind: "event" | "followers" | "publications"; subject: string; page: number; start: number; count: number; hasMore: boolean; total: number | null; fetchedAt: Date };

const upsertPageRow = (db: Queryable, row: StoredPage) =>
  db.query(
    `INSERT INTO upstream_pages (kind, subject, page, start_position, entry_count, has_more, total, fetched_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (kind, subject, page) DO UPDATE SET start_position = EXCLUDED.start_position,
       entry_count = EXCLUDED.entry_count, has_more = EXCLUDED.has_more, total = EXCLUDED.total, fetched_at = EXCLUDED.fetched_at`,
    [row.kind, row.subject, row.page, row.start, row.count, row.hasMore, row.total, row.fetchedAt],
  );


export const storeEvent = (db: Db, event: EventRecord, fetchedAt: Date): Promise<void> =>
  db.transaction(async (tx) => {
    await upsertEvents(tx, [event], UPSTREAM_SOURCE);
    await upsertPageRow(tx, { kind: "event", subject: event.event_id, page: 0, start: 0, count: 1, hasMore: false, total: null, fetchedAt });
  });

/** The stored prefix [0, end) of an upstream-sourced list, parsed back, or null when it is not there. */
const storedPrefix = async <Entry>(
  tx: Queryable,
  target: { table: "pin_followers" | "publications"; ownerColumn: "user_id" | "urn"; owner: string },
  end: number,
  parse: (value: unknown) => Entry,
): Promise<Entry[] | null> => {
  const records = await readRecords(tx, target.table, target.ownerColumn, target.owner, 0, end);
  if (records.length !== end) return null;
  return records.map((record) => parse(JSON.parse(record)));
};

type StoredList<Entry> = {
  table: "pin_followers" | "publications";
  ownerColumn: "user_id" | "urn";
  owner: string;
  parse: (value: unknown) => Entry;
  write: (entries: Entry[]) => Promise<unknown>;
};

type FetchedPage<Entry> = {
  kind: "followers" | "publications";
  page: number;
  /** The list position of the page's first entry. */
  start: number;
  entries: Entry[];
  hasMore: boolean;
  total: number | null;
  fetchedAt: Date;
};

/**
 * Rewrites a list as its stored first `start` entries followed by the fetched page, drops the
 * pages after it (the rewrite cut them off) and records this one. False, with nothing written,
 * when those first entries are not all stored.
 */
const rewriteWithPage = async <Entry>(tx: Queryable, list: StoredList<Entry>, fetched: FetchedPage<Entry>): Promise<boolean> => {
  const prefix = fetched.start === 0 ? [] : await storedPrefix(tx, list, fetched.start, list.parse);
  if (prefix === null) return false;
  await list.write([...prefix, ...fetched.entries]);
  const { kind, page, start, hasMore, total, fetchedAt } = fetched;
  await tx.query("DELETE FROM upstream_pages WHERE kind = $1 AND subject = $2 AND page > $3", [kind, list.owner, page]);
  await upsertPageRow(tx, { kind, subject: list.owner, page, start, count: fetched.entries.length, hasMore, total, fetchedAt });
  return true;
};

type FollowersPageToStore = {
  userId: string;
  offset: number;
  entries: FollowerEntry[];
  hasMore: boolean;
  /** The provider's own node id and cursor for the page after this one (when it has one). */
  next: { providerNodeId: string; providerCursor: string } | null;
};

/** Stores a fetched follower page (when it extends the stored prefix) and the provider's cursor of the next page. */
export const storeFollowersPage = (db: Db, page: FollowersPageToStore, fetchedAt: Date): Promise<boolean> =>
  db.transaction(async (tx) => {
    if (page.next) {
      await tx.query(
        `INSERT INTO upstream_cursors (user_id, position, provider_node_id, provider_cursor) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, position) DO UPDATE SET provider_node_id = EXCLUDED.provider_node_id,
           provider_cursor = EXCLUDED.provider_cursor, created_at = now()`,
        [page.userId, page.offset + page.entries.length, page.next.providerNodeId, page.next.providerCursor],
      );
    }
    const end = page.offset + page.entries.length;
    if (end > MAX_CACHED_LIST_POSITIONS) return false;
    if (page.offset > 0) {
      const owner = await tx.query<{ source: string; follower_count: number }>(
        "SELECT source, follower_count FROM pin_users WHERE user_id = $1 FOR UPDATE",
        [page.userId],
      );
      const current = owner[0];
      if (!current || current.source !== UPSTREAM_SOURCE || current.follower_count < page.offset) return false;
    }
    return rewriteWithPage(
      tx,
      { ...FOLLOWER_ENTRIES, owner: page.userId, write: (followers) => upsertFollowerList(tx, { userid: page.userId, followers }, UPSTREAM_SOURCE) },
      { kind: "followers", page: page.offset, start: page.offset, entries: page.entries, hasMore: page.hasMore, total: null, fetchedAt },
    );
  });

/** The provider's node id and cursor that continue a user's followers at `offset`, if known. */
export const providerCursorAt = async (
  db: Queryable,
  userId: string,
  offset: number,
): Promise<{ providerNodeId: string; providerCursor: string } | null> => {
  const rows = await db.query<{ provider_node_id: string; provider_cursor: string }>(
    "SELECT provider_node_id, provider_cursor FROM upstream_cursors WHERE user_id = $1 AND position = $2",
    [userId, offset],
  );
  const row = rows[0];
  return row ? { providerNodeId: row.provider_node_id, providerCursor: row.provider_cursor } : null;
};

type PublicationsPageToStore = { urn: string; page: number; total: number; hasMore: boolean; entries: Publication[] };

/** Stores a fetched publication page when it extends the stored prefix (page 1 starts a new one). */
export const storePublicationsPage = (db: Db, page: PublicationsPageToStore, fetchedAt: Date): Promise<boolean> =>
  db.transaction(async (tx) => {
    let start = 0;
    if (page.page > 1) {
      const rows = await tx.query<{ source: string; publication_count: number; start_position: number | null; entry_count: number | null }>(
        `SELECT pr.source, pr.publication_count, p.start_position, p.entry_count FROM profiles pr
         LEFT JOIN upstream_pages p ON p.kind = 'publications' AND p.subject = pr.urn AND p.page = $2
         WHERE pr.urn = $1 FOR UPDATE OF pr`,
        [page.urn, page.page - 1],
      );
      const previous = rows[0];
      if (!previous || previous.source !== UPSTREAM_SOURCE || previous.start_position === null || previous.entry_count === null) return false;
      start = previous.start_position + previous.entry_count;
      if (start > previous.publication_count || start + page.entries.length > MAX_CACHED_LIST_POSITIONS) return false;
    }
    return rewriteWithPage(
      tx,
      { ...PUBLICATION_ENTRIES, owner: page.urn, write: (publications) => upsertPublicationList(tx, { urn: page.urn, publications }, UPSTREAM_SOURCE) },
      { kind: "publications", page: page.page, start, entries: page.entries, hasMore: page.hasMore, total: page.total, fetchedAt },
    );
  });

/** Canonical record text of fetched entries (the same text the store serves). */
export const canonical = {
  event: eventJson,
  follower: followerJson,
  publication: publicationJson,
};
