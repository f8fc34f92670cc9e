import type { z } from "zod";
import type { Queryable } from "@/lib/db/client";
import type { RecordKind } from "@/lib/records/kinds";
import { isFresh, upsertPageRow, UPSTREAM_SOURCE } from "./cache";
import { providerRecord } from "./provider-answer";
import type { AnswerSubjects, Source } from "./source";
import { UpstreamBadAnswerError } from "./upstream-client";

/**
 * A source whose answer is one record, stored as one row of the kind's owner table (an event):
 * what an operation declares, and the source the engine runs.
 */
export type SingleRecordSpec<Params, Item, ProviderData, Data> = {
  kind: RecordKind;
  /** The record's id the request names (in the caller's spelling). */
  id(params: Params): string;
  /** The answer's `data` around the record's canonical text. */
  dataJson(recordJson: string): string;
  /** The record's canonical text (store-records.ts) and its own id. */
  recordJson(record: Item): string;
  recordId(record: Item): string;
  /** The kind's writer (store-records.ts), for records fetched from the provider. */
  write(db: Queryable, record: Item, source: string): Promise<unknown>;
  upstream: {
    /** The provider's path, without the leading slash: "v1/<site>/<operation>". */
    path: string;
    query(params: Params): Record<string, string>;
    /** The provider's `data`, checked; a failure is a bad answer. */
    schema: z.ZodType<ProviderData>;
    record(data: ProviderData): Item;
  };
  answerSubjects?: AnswerSubjects<Data>;
};

export const singleRecordSource = <Params, Item, ProviderData, Data>(
  spec: SingleRecordSpec<Params, Item, ProviderData, Data>,
): Source<Params, Data> & { upstreamPath: string } => {
  const { kind } = spec;
  const { owners, idColumn } = kind.tables;
  return {
    kind,
    upstreamPath: spec.upstream.path,
    subject: spec.id,
    key: spec.id,
    ...(spec.answerSubjects ? { answerSubjects: spec.answerSubjects } : {}),
    fromStore: async (db, params) => {
      const rows = await db.query<{ record: string; fetched_at: Date | string }>(
        `SELECT record::text AS record, fetched_at FROM ${owners} WHERE ${idColumn} = $1`,
        [spec.id(params)],
      );
      const row = rows[0];
      return row ? { dataJson: spec.dataJson(row.record), asOf: new Date(row.fetched_at) } : null;
    },
    probe: async (db, params, freshness) => {
      const rows = await db.query<{ source: string; record: string; fetched_at: Date | string | null }>(
        `SELECT e.source, e.record::text AS record, p.fetched_at FROM ${owners} e
         LEFT JOIN upstream_pages p ON p.kind = $2 AND p.subject = e.${idColumn} AND p.page = 0
         WHERE e.${idColumn} = $1`,
        [spec.id(params), kind.cacheKind],
      );
      const row = rows[0];
      if (!row) return { storeSource: null, fresh: null };
      if (row.source !== UPSTREAM_SOURCE) return { storeSource: row.source, fresh: null };
      if (!isFresh(row.fetched_at, freshness)) return { storeSource: row.source, fresh: null, stale: row.fetched_at !== null };
      return { storeSource: row.source, fresh: { dataJson: spec.dataJson(row.record), asOf: new Date(row.fetched_at) } };
    },
    fetch: async (params, provider) => {
      const answer = await provider.get(spec.upstream.path, spec.upstream.query(params));
      if (answer.kind === "not_found") return null;
      const record = spec.upstream.record(providerRecord(kind, spec.upstream.schema, answer.data));
      // The provider may read an id with leading zeros as the number it is: the same subject.
      const asked = spec.id(params);
      const answered = spec.recordId(record);
      if ((kind.canonical(answered) ?? answered) !== (kind.canonical(asked) ?? asked)) {
        throw new UpstreamBadAnswerError(`the provider answered ${kind.subject} ${answered} for ${kind.subject} ${asked}`);
      }
      const fetchedAt = new Date(provider.now());
      await provider.keep((db) =>
        db.transaction(async (tx) => {
          await spec.write(tx, record, UPSTREAM_SOURCE);
          await upsertPageRow(tx, { kind: kind.cacheKind, subject: answered, page: 0, start: 0, count: 1, hasMore: false, total: null, fetchedAt });
        }),
      );
      return { dataJson: spec.dataJson(spec.recordJson(record)), asOf: fetchedAt };
    },
  };
};
