import type { Db, Queryable } from "@/lib/db/client";
import { recordKindOf, type RecordKind } from "@/lib/records/kinds";
import type { SubjectKind } from "@/lib/records/subject-kinds";
import type { CursorCodec } from "./cursor";

/**
 * What an operation declares about where its answers come from: a source. The engine (store.ts,
 * upstream.ts, suppression.ts) runs every source the same way — single-flight, reservation,
 * caching, freshness, suppression — and knows no operation and no kind of record by name. An
 * operation's folder declares its source (lib/operations/<op>/source.ts) with one of the two
 * helpers for the record shapes there are: one record (single-record.ts) or a paged list with an
 * owner row (paged-list.ts).
 */

/** An answer's `data` as JSON text, and when its records were fetched. */
export type SourceAnswer = { dataJson: string; asOf: Date };

/**
 * What the store holds for a subject: its records' source (null: nothing) and a fresh cached page;
 * `stale` when the page asked for was cached from upstream but is older than the freshness allows.
 */
export type CacheProbe = { storeSource: string | null; fresh: SourceAnswer | null; stale?: boolean };

/** How old a cached page may be, and the time now (ms). */
export type Freshness = { ttlMs: number; now: number };

/** What a source may use besides the database: our signed list cursors. */
export type SourceTools = { cursors: CursorCodec };

/** The provider's answer to one call (upstream-client.ts). */
export type ProviderAnswer = { kind: "data"; data: unknown } | { kind: "not_found"; message: string };

/** What a source may use to fetch from the provider, after the engine reserved the cost. */
export type ProviderTools = SourceTools & {
  /** One provider call with the request's credentials (shared or the key owner's own). */
  get(path: string, query: Record<string, string>): Promise<ProviderAnswer>;
  db(): Promise<Db>;
  now(): number;
  /** Writes fetched records to the cache; a failed write is logged and the answer still goes out. */
  keep(write: (db: Db) => Promise<unknown>): Promise<void>;
};

/**
 * The subjects an answer shows besides the one the request names, all of the source's kind: the
 * record's own (suppressed → not found, whichever spelling was asked) and the entries it lists
 * (suppressed → left out).
 */
export type AnswerSubjects<Data> = {
  own?(data: Data): string | null;
  /** The answer without the entries whose subject `keep` refuses; the same object when it keeps them all. */
  entries?(data: Data, keep: (subject: string) => boolean): Data;
};

export type Source<Params, Data = unknown> = {
  /** The kind of record it answers (lib/records/kinds.ts): subject kind, cache kind, TTL variable, tables. */
  kind: RecordKind;
  /** The subject the request names, in the caller's spelling: checked before any cache or provider. */
  subject(params: Params): string;
  /** The request within its kind: the in-memory cache's and single-flight's key. */
  key(params: Params): string;
  /** The record store's answer; null when it does not hold the subject. */
  fromStore(db: Queryable, params: Params, tools: SourceTools): Promise<SourceAnswer | null>;
  /** The upstream cache's view of the request. */
  probe(db: Queryable, params: Params, freshness: Freshness, tools: SourceTools): Promise<CacheProbe>;
  /** One provider call and its mapping, the records written to the cache; null when the provider has no such subject. */
  fetch(params: Params, provider: ProviderTools): Promise<SourceAnswer | null>;
  answerSubjects?: AnswerSubjects<Data>;
};

/** The record kind of a subject kind (lib/records/kinds.ts), for a source to declare. */
export const kindOf = (subject: SubjectKind): RecordKind => {
  const kind = recordKindOf(subject);
  if (!kind) throw new Error(`no record kind for the subject kind ${subject}`);
  return kind;
};
