import type { z } from "zod";
import type { Db, Queryable } from "@/lib/db/client";
import type { RecordKind } from "@/lib/records/kinds";
import {
  listPageRow,
  MAX_CACHED_LIST_POSITIONS,
  providerCursorAt,
  rewriteWithPage,
  saveProviderCursor,
  servedPage,
  UPSTREAM_SOURCE,
  type ListKind,
  type ProviderContinuation,
} from "./cache";
import { providerRecord } from "./provider-answer";
import type { AnswerSubjects, Source, SourceTools } from "./source";

/**
 * A source whose answer is one page of a list with an owner row (a user's followers, a profile's
 * publications): the owner's row holds the list's length, the entries sit at positions in the
 * kind's entries table. What an operation declares, and the source the engine runs.
 */

/** One page as the answer shows it, whichever way it came (store, cache, provider). */
export type ListPage = {
  /** The page's entries, as their canonical JSON text. */
  entries: readonly string[];
  /** The list position right after the page: where the next page starts. */
  end: number;
  hasMore: boolean;
  /** The list's length: the owner's count in the store, else the provider's total (the page's end when it gave none). */
  total: number;
};

/** A page read from the provider's answer. */
export type FetchedListPage<Entry> = {
  entries: Entry[];
  hasMore: boolean;
  total: number | null;
  /** The provider's own continuation of the list after this page, when it pages by cursor. */
  next: ProviderContinuation | null;
};

export type PagedListSpec<Params, Entry, ProviderData, Data> = {
  kind: RecordKind;
  pageSize: number;
  /** The owner the request names (in the caller's spelling). */
  owner(params: Params): string;
  /** The page asked: the number its cache row goes by, and the store position of its first entry. */
  page(params: Params): { number: number; start: number };
  /**
   * Where a fetched page goes in the cached list: at its own position (pages numbered by
   * position), or right after the cached page numbered one less (the provider's pages may not
   * be ours in size).
   */
  placement: "at-position" | "after-previous-page";
  /** The answer shows the list's total: a cached page stored without the provider's total cannot answer. */
  showsTotal: boolean;
  /** The answer's `data`. */
  dataJson(params: Params, page: ListPage, tools: SourceTools): string;
  /** An entry's canonical text (store-records.ts), and back. */
  entryJson(entry: Entry): string;
  parseEntry(value: unknown): Entry;
  /** The kind's writer (store-records.ts): replaces the owner's whole list. */
  writeList(db: Queryable, owner: string, entries: Entry[], source: string): Promise<unknown>;
  upstream: {
    /** The provider's path, without the leading slash: "v1/<site>/<operation>". */
    path: string;
    /**
     * The provider's query for the page asked; a later page may need the provider's own
     * continuation, saved when the page before it was fetched (`saved.at(owner, position)`).
     */
    query(
      params: Params,
      saved: { at(owner: string, position: number): Promise<ProviderContinuation | null> },
    ): Promise<{ query: Record<string, string>; continuation: ProviderContinuation | null }>;
    schema: z.ZodType<ProviderData>;
    read(data: ProviderData, params: Params, continuation: ProviderContinuation | null): FetchedListPage<Entry>;
  };
  answerSubjects?: AnswerSubjects<Data>;
};

const listKindOf = (kind: RecordKind): ListKind => {
  const entries = kind.tables.entries;
  if (!entries) throw new Error(`record kind ${kind.subject} is not a list: it has no entries table`);
  return { ...kind, tables: { ...kind.tables, entries } };
};

export const pagedListSource = <Params, Entry, ProviderData, Data>(
  spec: PagedListSpec<Params, Entry, ProviderData, Data>,
): Source<Params, Data> & { upstreamPath: string } => {
  const kind = listKindOf(spec.kind);
  const { owners, idColumn, entries: entryTable } = kind.tables;

  /** The list position where a fetched page is stored, or null when it is not stored (served only). */
  const placeAtPosition = async (tx: Queryable, owner: string, start: number, count: number): Promise<number | null> => {
    if (start + count > MAX_CACHED_LIST_POSITIONS) return null;
    if (start === 0) return 0;
    const rows = await tx.query<{ source: string; list_count: number }>(
      `SELECT source, ${entryTable.countColumn} AS list_count FROM ${owners} WHERE ${idColumn} = $1 FOR UPDATE`,
      [owner],
    );
    const current = rows[0];
    return !current || current.source !== UPSTREAM_SOURCE || current.list_count < start ? null : start;
  };

  const placeAfterPrevious = async (tx: Queryable, owner: string, number: number, count: number): Promise<number | null> => {
    const rows = await tx.query<{ source: string; list_count: number; start_position: number | null; entry_count: number | null }>(
      `SELECT pr.source, pr.${entryTable.countColumn} AS list_count, p.start_position, p.entry_count FROM ${owners} pr
       LEFT JOIN upstream_pages p ON p.kind = $3 AND p.subject = pr.${idColumn} AND p.page = $2
       WHERE pr.${idColumn} = $1 FOR UPDATE OF pr`,
      [owner, number - 1, kind.cacheKind],
    );
    const previous = rows[0];
    if (!previous || previous.source !== UPSTREAM_SOURCE || previous.start_position === null || previous.entry_count === null) return null;
    const start = previous.start_position + previous.entry_count;
    return start > previous.list_count || start + count > MAX_CACHED_LIST_POSITIONS ? null : start;
  };

  /** Stores a fetched page when it extends the cached prefix, and the provider's continuation after it. */
  const storePage = (db: Db, params: Params, page: FetchedListPage<Entry>, fetchedAt: Date): Promise<boolean> =>
    db.transaction(async (tx) => {
      const owner = spec.owner(params);
      const asked = spec.page(params);
      if (page.next) await saveProviderCursor(tx, owner, asked.start + page.entries.length, page.next);
      const start =
        spec.placement === "at-position"
          ? await placeAtPosition(tx, owner, asked.start, page.entries.length)
          : asked.start === 0
            ? 0
            : await placeAfterPrevious(tx, owner, asked.number, page.entries.length);
      if (start === null) return false;
      return rewriteWithPage(
        tx,
        { kind, owner, parse: spec.parseEntry, write: (entries) => spec.writeList(tx, owner, entries, UPSTREAM_SOURCE) },
        { page: asked.number, start, entries: page.entries, hasMore: page.hasMore, total: page.total, fetchedAt },
      );
    });

  return {
    kind,
    upstreamPath: spec.upstream.path,
    subject: spec.owner,
    key: (params) => `${spec.owner(params)}|${spec.page(params).number}`,
    ...(spec.answerSubjects ? { answerSubjects: spec.answerSubjects } : {}),
    fromStore: async (db, params, tools) => {
      const { start } = spec.page(params);
      const rows = await db.query<{ list_count: number; fetched_at: Date | string; record: string | null }>(
        `SELECT o.${entryTable.countColumn} AS list_count, o.fetched_at, e.record::text AS record
         FROM ${owners} o
         LEFT JOIN ${entryTable.table} e ON e.${entryTable.ownerColumn} = o.${idColumn} AND e.position >= $2 AND e.position < $2 + $3
         WHERE o.${idColumn} = $1 ORDER BY e.position`,
        [spec.owner(params), start, spec.pageSize],
      );
      const first = rows[0];
      if (!first) return null;
      const entries = rows.flatMap((row) => (row.record === null ? [] : [row.record]));
      const end = start + spec.pageSize;
      const page: ListPage = { entries, end, hasMore: end < first.list_count, total: first.list_count };
      return { dataJson: spec.dataJson(params, page, tools), asOf: new Date(first.fetched_at) };
    },
    probe: async (db, params, freshness, tools) => {
      const owner = spec.owner(params);
      const row = await listPageRow(db, kind, owner, spec.page(params).number);
      if (!row) return { storeSource: null, fresh: null };
      const page = spec.showsTotal && row.total === null ? null : await servedPage(db, kind, owner, row, freshness);
      if (!page) return { storeSource: row.source, fresh: null, stale: row.source === UPSTREAM_SOURCE && row.fetched_at !== null };
      const shown: ListPage = { entries: page.entries, end: page.start + page.count, hasMore: page.hasMore, total: row.total ?? row.list_count };
      return { storeSource: row.source, fresh: { dataJson: spec.dataJson(params, shown, tools), asOf: page.fetchedAt } };
    },
    fetch: async (params, provider) => {
      const asked = await spec.upstream.query(params, { at: async (owner, position) => providerCursorAt(await provider.db(), owner, position) });
      const answer = await provider.get(spec.upstream.path, asked.query);
      if (answer.kind === "not_found") return null;
      const page = spec.upstream.read(providerRecord(kind, spec.upstream.schema, answer.data), params, asked.continuation);
      const fetchedAt = new Date(provider.now());
      await provider.keep((db) => storePage(db, params, page, fetchedAt));
      const end = spec.page(params).start + page.entries.length;
      const shown: ListPage = { entries: page.entries.map(spec.entryJson), end, hasMore: page.hasMore, total: page.total ?? end };
      return { dataJson: spec.dataJson(params, shown, provider), asOf: fetchedAt };
    },
  };
};
