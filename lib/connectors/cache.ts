import type { Queryable } from "@/lib/db/client";
import type { RecordKind } from "@/lib/records/kinds";
import type { Freshness } from "./source";

/**
 * The upstream cache's rows, for every kind of record alike. Answers fetched from the provider
 * are stored as records (source "upstream") through the kind's writer (store-records.ts), like
 * imports; a row of upstream_pages per fetched page (its `kind` is the record kind's cacheKind)
 * records when it was fetched and where its entries sit in the stored list. A page is served from
 * the cache while its row is younger than the kind's TTL and the subject's records are still
 * upstream's (an import of the same subject replaces them and ends their cache life).
 *
 * Lists are stored as the contiguous prefix of pages fetched so far: a page is stored only when
 * the pages before it are, by rewriting the list (prefix + page), because the record writers
 * replace whole lists. Pages past MAX_CACHED_LIST_POSITIONS, or fetched out of order, are served
 * but not stored.
 */
export const MAX_CACHED_LIST_POSITIONS = 5000;

export const UPSTREAM_SOURCE = "upstream";

/** A kind whose record is a list: its entries sit in their own table, one row per position. */
export type ListKind = RecordKind & {
  tables: RecordKind["tables"] & { entries: NonNullable<RecordKind["tables"]["entries"]> };
};

export const isFresh = (fetchedAt: Date | string | null, freshness: Freshness): fetchedAt is Date | string =>
  fetchedAt !== null && freshness.now - new Date(fetchedAt).getTime() < freshness.ttlMs;

type PageRowToStore = {
  kind: string;
  subject: string;
  page: number;
  start: number;
  count: number;
  hasMore: boolean;
  total: number | null;
  fetchedAt: Date;
};

export const upsertPageRow = (db: Queryable, row: PageRowToStore) =>
  db.query(
    `INSERT INTO upstream_pages (kind, subject, page, start_position, entry_count, has_more, total, fetched_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (kind, subject, page) DO UPDATE SET start_position = EXCLUDED.start_position,
       entry_count = EXCLUDED.entry_count, has_more = EXCLUDED.has_more, total = EXCLUDED.total, fetched_at = EXCLUDED.fetched_at`,
    [row.kind, row.subject, row.page, row.start, row.count, row.hasMore, row.total, row.fetchedAt],
  );

/** The stored records of a list at positions [start, start + count), in order. */
export const readRecords = async (db: Queryable, kind: ListKind, owner: string, start: number, count: number): Promise<string[]> => {
  if (count === 0) return [];
  const { table, ownerColumn } = kind.tables.entries;
  const rows = await db.query<{ record: string }>(
    `SELECT record::text AS record FROM ${table} WHERE ${ownerColumn} = $1 AND position >= $2 AND position < $3 ORDER BY position`,
    [owner, start, start + count],
  );
  return rows.map((row) => row.record);
};

export type PageRow = {
  source: string;
  list_count: number;
  fetched_at: Date | string | null;
  start_position: number | null;
  entry_count: number | null;
  has_more: boolean | null;
  total: number | null;
};

/** A list's owner (its source and length) with the cached page `page` of the list if one is recorded; undefined for an unknown owner. */
export const listPageRow = async (db: Queryable, kind: ListKind, owner: string, page: number): Promise<PageRow | undefined> => {
  const { owners, idColumn, entries } = kind.tables;
  const rows = await db.query<PageRow>(
    `SELECT o.source, o.${entries.countColumn} AS list_count, p.fetched_at, p.start_position, p.entry_count, p.has_more, p.total
     FROM ${owners} o
     LEFT JOIN upstream_pages p ON p.kind = $3 AND p.subject = o.${idColumn} AND p.page = $2
     WHERE o.${idColumn} = $1`,
    [owner, page, kind.cacheKind],
  );
  return rows[0];
};

/**
 * The page a probe found, with its entries, when it can be served: fresh from upstream and its
 * entries all still stored; null otherwise.
 */
export const servedPage = async (db: Queryable, kind: ListKind, owner: string, row: PageRow, freshness: Freshness) => {
  if (row.source !== UPSTREAM_SOURCE || !isFresh(row.fetched_at, freshness)) return null;
  if (row.start_position === null || row.entry_count === null) return null;
  if (row.start_position + row.entry_count > row.list_count) return null;
  const page = { fetchedAt: new Date(row.fetched_at), start: row.start_position, count: row.entry_count, hasMore: row.has_more ?? false };
  const entries = await readRecords(db, kind, owner, page.start, page.count);
  return entries.length === page.count ? { ...page, entries } : null;
};

/** The stored prefix [0, end) of an upstream-sourced list, parsed back, or null when it is not there. */
const storedPrefix = async <Entry>(tx: Queryable, kind: ListKind, owner: string, end: number, parse: (value: unknown) => Entry): Promise<Entry[] | null> => {
  const records = await readRecords(tx, kind, owner, 0, end);
  if (records.length !== end) return null;
  return records.map((record) => parse(JSON.parse(record)));
};

export type StoredList<Entry> = {
  kind: ListKind;
  owner: string;
  parse: (value: unknown) => Entry;
  write: (entries: Entry[]) => Promise<unknown>;
};

export type FetchedPage<Entry> = {
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
export const rewriteWithPage = async <Entry>(tx: Queryable, list: StoredList<Entry>, fetched: FetchedPage<Entry>): Promise<boolean> => {
  const prefix = fetched.start === 0 ? [] : await storedPrefix(tx, list.kind, list.owner, fetched.start, list.parse);
  if (prefix === null) return false;
  await list.write([...prefix, ...fetched.entries]);
  const { page, start, hasMore, total, fetchedAt } = fetched;
  const kind = list.kind.cacheKind;
  await tx.query("DELETE FROM upstream_pages WHERE kind = $1 AND subject = $2 AND page > $3", [kind, list.owner, page]);
  await upsertPageRow(tx, { kind, subject: list.owner, page, start, count: fetched.entries.length, hasMore, total, fetchedAt });
  return true;
};

/** The provider's own node id and cursor that continue a list at a position. */
export type ProviderContinuation = { providerNodeId: string; providerCursor: string };

/** Keeps the provider's continuation of a list at `position`, for the client that continues there with our cursor. */
export const saveProviderCursor = (db: Queryable, owner: string, position: number, next: ProviderContinuation) =>
  db.query(
    `INSERT INTO upstream_cursors (user_id, position, provider_node_id, provider_cursor) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, position) DO UPDATE SET provider_node_id = EXCLUDED.provider_node_id,
       provider_cursor = EXCLUDED.provider_cursor, created_at = now()`,
    [owner, position, next.providerNodeId, next.providerCursor],
  );

/** The provider's continuation of a list at `position`, if known. */
export const providerCursorAt = async (db: Queryable, owner: string, position: number): Promise<ProviderContinuation | null> => {
  const rows = await db.query<{ provider_node_id: string; provider_cursor: string }>(
    "SELECT provider_node_id, provider_cursor FROM upstream_cursors WHERE user_id = $1 AND position = $2",
    [owner, position],
  );
  const row = rows[0];
  return row ? { providerNodeId: row.provider_node_id, providerCursor: row.provider_cursor } : null;
};
