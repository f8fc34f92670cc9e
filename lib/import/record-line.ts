import type { z } from "zod";
import type { Queryable } from "@/lib/db/client";
import type { RecordKind } from "@/lib/records/kinds";
import { checkEntries, describeIssues, isObject, type Checked } from "./check";

/**
 * How one kind of record (lib/records/kinds.ts) is read from an import file's value, counted and
 * written: a single record (an Event, bare or in its wrapper) or a list (a head and its entries).
 * Tables and columns come from the kind's row; a line adds only its schemas and its writer
 * (lib/connectors/store-records.ts). The importer loops over the lines (lib/import/lines.ts).
 */
export type ImportCounts = {
  /** Good records read (written or unchanged). */
  records: number;
  written: number;
  unchanged: number;
  /** Bad values skipped (or, with strict, found). */
  skipped: number;
  events: number;
  followerLists: number;
  followers: number;
  publicationLists: number;
  publications: number;
};

/** A count a kind of record adds to. */
export type KindCount = Exclude<keyof ImportCounts, "records" | "written" | "unchanged" | "skipped">;

/** One good value, bound to its line: what the importer screens, counts and writes. */
export type LineRecord<Data> = {
  /** The value in its kind's own shape (lib/import/lines.ts `ImportRecord`). */
  data: Data;
  kind: RecordKind;
  /** The subject it is the record of, as written. */
  id: string;
  /** A list's entries (screening reads the subjects they name); null for a single record. */
  entries: readonly unknown[] | null;
  /** The same record without the entries at these positions. */
  without(positions: ReadonlySet<number>): LineRecord<Data>;
  /** Entries it writes: the list's length and its head, or 1. */
  weight: number;
  count(counts: ImportCounts): void;
  line: ImportLine<Data>;
};

export type ImportLine<Data> = {
  kind: RecordKind;
  /** How the "not a record" message names it: "an event (event_id)". */
  describe: string;
  /** Whether a value is meant as this kind (then its problems are this kind's). */
  claims(value: Record<string, unknown>): boolean;
  classify(value: Record<string, unknown>): Checked<LineRecord<Data>>;
  /** Writes this line's records of one batch inside its transaction, counting written and unchanged. */
  write(tx: Queryable, records: readonly LineRecord<Data>[], source: string, counts: ImportCounts): Promise<void>;
};

const COMPARE_PAGE = 5000;

/** A line's own records' values: each line reads back only the values it bound. */
const boundValues = <Data, Value>() => {
  const values = new WeakMap<LineRecord<Data>, Value>();
  return {
    bind: (record: LineRecord<Data>, value: Value): LineRecord<Data> => {
      values.set(record, value);
      return record;
    },
    of: (records: readonly LineRecord<Data>[]): Value[] =>
      records.flatMap((record) => {
        const value = values.get(record);
        return value === undefined ? [] : [value];
      }),
  };
};

/** A kind whose record is one JSON value, stored whole in its owners' `record` column. */
export const singleLine = <Value, Data>(spec: {
  kind: RecordKind;
  describe: string;
  /** The API's wrapper a value may come in (`{event: …}`), if any. */
  wrapper?: string;
  schema: z.ZodType<Value>;
  id(value: Value): string;
  json(value: Value): string;
  data(value: Value): Data;
  /** The count it adds to besides `records` (a kind declared with its operation has none of its own). */
  count?: KindCount;
  upsert(tx: Queryable, values: Value[], source: string): Promise<unknown>;
}): ImportLine<Data> => {
  const { kind } = spec;
  const { owners, idColumn } = kind.tables;
  const bound = boundValues<Data, Value>();
  const candidateOf = (value: Record<string, unknown>): unknown =>
    kind.file.idField in value ? value : spec.wrapper !== undefined && isObject(value[spec.wrapper]) ? value[spec.wrapper] : null;

  const recordOf = (value: Value): LineRecord<Data> => {
    const record: LineRecord<Data> = {
      data: spec.data(value),
      kind,
      id: spec.id(value),
      entries: null,
      without: () => record,
      weight: 1,
      count: (counts) => {
        if (spec.count !== undefined) counts[spec.count] += 1;
      },
      line,
    };
    return bound.bind(record, value);
  };

  /** Values that differ from the stored ones; the last copy of an id wins. */
  const changed = async (tx: Queryable, values: Value[]): Promise<Value[]> => {
    const byId = new Map<string, Value>();
    for (const value of values) byId.set(spec.id(value), value);
    const stored = await tx.query<{ id: string; record: string }>(
      `SELECT ${idColumn} AS id, record::text AS record FROM ${owners} WHERE ${idColumn} = ANY($1::text[])`,
      [[...byId.keys()]],
    );
    const storedById = new Map(stored.map((row) => [row.id, row]));
    return [...byId.values()].filter((value) => {
      const row = storedById.get(spec.id(value));
      return !row || row.record !== spec.json(value);
    });
  };

  const line: ImportLine<Data> = {
    kind,
    describe: spec.describe,
    claims: (value) => candidateOf(value) !== null,
    classify: (value) => {
      const candidate = candidateOf(value);
      const parsed = spec.schema.safeParse(candidate);
      if (!parsed.success) return { ok: false, message: describeIssues(parsed.error, candidate === value || spec.wrapper === undefined ? [] : [spec.wrapper]) };
      return { ok: true, value: recordOf(parsed.data) };
    },
    write: async (tx, records, source, counts) => {
      const values = bound.of(records);
      if (values.length === 0) return;
      const distinct = new Set(values.map(spec.id)).size;
      const fresh = await changed(tx, values);
      if (fresh.length > 0) await spec.upsert(tx, fresh, source);
      counts.written += fresh.length;
      counts.unchanged += distinct - fresh.length;
      // Repeated ids inside one batch count once as written or unchanged, the rest as unchanged.
      counts.unchanged += values.length - distinct;
    },
  };
  return line;
};

/** Canonical texts computed on demand, so comparing a huge list does not build them all at once. */
const lazyTexts = <Entry>(entries: readonly Entry[], toJson: (entry: Entry) => string) => ({
  length: entries.length,
  at: (index: number): string => {
    const entry = entries[index];
    return entry === undefined ? "" : toJson(entry);
  },
});

type ListTables = { owners: string; idColumn: string; table: string; ownerColumn: string; countColumn: string };

/** Whether a stored list already holds exactly these records (compared page by page). */
const sameList = async (db: Queryable, target: ListTables, owner: string, records: ReturnType<typeof lazyTexts>): Promise<boolean> => {
  const heads = await db.query<{ count: number }>(`SELECT ${target.countColumn} AS count FROM ${target.owners} WHERE ${target.idColumn} = $1`, [
    owner,
  ]);
  const head = heads[0];
  if (!head || head.count !== records.length) return false;
  for (let start = 0; start < records.length; start += COMPARE_PAGE) {
    const rows = await db.query<{ record: string }>(
      `SELECT record::text AS record FROM ${target.table} WHERE ${target.ownerColumn} = $1 AND position >= $2 AND position < $3 ORDER BY position`,
      [owner, start, start + COMPARE_PAGE],
    );
    const expected = Math.min(COMPARE_PAGE, records.length - start);
    if (rows.length !== expected) return false;
    for (let index = 0; index < rows.length; index += 1) {
      if (rows[index]?.record !== records.at(start + index)) return false;
    }
  }
  return true;
};

/** A kind whose record is a list: a head (its id) and entries, kept in the kind's entries table. */
export const listLine = <Head, Entry, List, Data>(spec: {
  kind: RecordKind;
  describe: string;
  head: z.ZodType<Head>;
  entry: z.ZodType<Entry>;
  /** A problem of the head beyond its schema, or null. */
  check?(head: Head): string | null;
  list(head: Head, entries: Entry[]): List;
  id(list: List): string;
  entriesOf(list: List): Entry[];
  withEntries(list: List, entries: Entry[]): List;
  entryJson(entry: Entry): string;
  data(list: List): Data;
  counts: { lists: KindCount; entries: KindCount };
  upsert(tx: Queryable, list: List, source: string): Promise<unknown>;
}): ImportLine<Data> => {
  const { kind } = spec;
  const entries = kind.tables.entries;
  if (entries === undefined) throw new Error(`${kind.exportName} is not a list kind (lib/records/kinds.ts)`);
  const tables: ListTables = { owners: kind.tables.owners, idColumn: kind.tables.idColumn, ...entries };
  const field = entries.field;
  const bound = boundValues<Data, List>();

  const recordOf = (list: List): LineRecord<Data> => {
    const items = spec.entriesOf(list);
    const record: LineRecord<Data> = {
      data: spec.data(list),
      kind,
      id: spec.id(list),
      entries: items,
      without: (positions) => recordOf(spec.withEntries(list, items.filter((_, index) => !positions.has(index)))),
      weight: items.length + 1,
      count: (counts) => {
        counts[spec.counts.lists] += 1;
        counts[spec.counts.entries] += items.length;
      },
      line,
    };
    return bound.bind(record, list);
  };

  const line: ImportLine<Data> = {
    kind,
    describe: spec.describe,
    claims: (value) => field in value,
    classify: (value) => {
      const head = spec.head.safeParse(value);
      if (!head.success) return { ok: false, message: describeIssues(head.error) };
      const listed = value[field];
      if (!Array.isArray(listed)) return { ok: false, message: `${field}: expected an array` };
      const problem = spec.check?.(head.data) ?? null;
      if (problem !== null) return { ok: false, message: problem };
      const checked = checkEntries(listed, spec.entry, field);
      if (!checked.ok) return checked;
      return { ok: true, value: recordOf(spec.list(head.data, checked.value)) };
    },
    write: async (tx, records, source, counts) => {
      for (const list of bound.of(records)) {
        if (await sameList(tx, tables, spec.id(list), lazyTexts(spec.entriesOf(list), spec.entryJson))) counts.unchanged += 1;
        else {
          await spec.upsert(tx, list, source);
          counts.written += 1;
        }
      }
    },
  };
  return line;
};
