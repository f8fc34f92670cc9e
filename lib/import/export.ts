import { once } from "node:events";
import type { Writable } from "node:stream";
import type { Queryable } from "@/lib/db/client";
import { kindsOf, type Registry } from "@/lib/operations";
import { recordKinds, type RecordKind } from "@/lib/records/kinds";

/**
 * Writes the record store as NDJSON in the import's shapes, one record per line, for one kind of
 * record (lib/records/kinds.ts, by its export name): an Event; a follower list `{userid, node_id,
 * followers}`; a publication list `{urn, publications}` — the names come from the kind's row. The
 * stored canonical text is written as it is, so importing the output stores the same text
 * (round trip). Keyset-paged reads and awaited writes: memory stays at one page, even for a
 * list of 200,000 followers (its line is written piece by piece).
 */
export type ExportKind = (typeof recordKinds)[number]["exportName"];

export const EXPORT_KINDS: readonly ExportKind[] = recordKinds.map((kind) => kind.exportName);

const SINGLES_PAGE = 1000;
const OWNERS_PAGE = 200;
const ENTRIES_PAGE = 5000;

const writer = (out: Writable) => async (text: string) => {
  if (!out.write(text)) await once(out, "drain");
};

type Options = {
  source?: string;
  onRecord?: (records: number) => void;
  /** The registry whose kinds may be exported (by export name); the kinds table's by default. */
  operations?: Registry;
};

/** A kind without entries: each owner's stored record, one a line, in id order. */
const exportSingles = async (db: Queryable, kind: RecordKind, write: (text: string) => Promise<void>, options: Options): Promise<number> => {
  const { owners, idColumn } = kind.tables;
  const source = options.source ?? null;
  let records = 0;
  let after: string | null = null;
  for (;;) {
    const rows: { id: string; record: string }[] = await db.query(
      `SELECT ${idColumn} AS id, record::text AS record FROM ${owners}
       WHERE ($1::text IS NULL OR ${idColumn} > $1) AND ($2::text IS NULL OR source = $2)
       ORDER BY ${idColumn} LIMIT $3`,
      [after, source, SINGLES_PAGE],
    );
    if (rows.length === 0) break;
    await write(rows.map((row) => `${row.record}\n`).join(""));
    records += rows.length;
    options.onRecord?.(records);
    after = rows.at(-1)?.id ?? null;
    if (rows.length < SINGLES_PAGE) break;
  }
  return records;
};

/** The line's opening up to the entries array, e.g. `{"userid":"1","node_id":"…","followers":[`. */
const opening = (kind: RecordKind, field: string, owner: { id: string; nodeId: string | null }): string => {
  const { idField, nodeIdField } = kind.file;
  const nodeId = nodeIdField === undefined ? "" : `${JSON.stringify(nodeIdField)}:${JSON.stringify(owner.nodeId)},`;
  return `{${JSON.stringify(idField)}:${JSON.stringify(owner.id)},${nodeId}${JSON.stringify(field)}:[`;
};

/** A list kind: each owner's line, its entries written a page at a time. */
const exportLists = async (db: Queryable, kind: RecordKind, write: (text: string) => Promise<void>, options: Options): Promise<number> => {
  const { owners, idColumn, entries: listed, nodeIdColumn } = kind.tables;
  if (listed === undefined) return 0;
  const source = options.source ?? null;
  const nodeColumn = nodeIdColumn ?? "NULL::text";
  let records = 0;
  let after: string | null = null;
  for (;;) {
    const heads: { id: string; node_id: string | null }[] = await db.query(
      `SELECT ${idColumn} AS id, ${nodeColumn} AS node_id FROM ${owners}
       WHERE ($1::text IS NULL OR ${idColumn} > $1) AND ($2::text IS NULL OR source = $2)
       ORDER BY ${idColumn} LIMIT $3`,
      [after, source, OWNERS_PAGE],
    );
    if (heads.length === 0) break;
    for (const head of heads) {
      await write(opening(kind, listed.field, { id: head.id, nodeId: head.node_id }));
      let position = -1;
      let first = true;
      for (;;) {
        const entries: { position: number; record: string }[] = await db.query(
          `SELECT position, record::text AS record FROM ${listed.table}
           WHERE ${listed.ownerColumn} = $1 AND position > $2 ORDER BY position LIMIT $3`,
          [head.id, position, ENTRIES_PAGE],
        );
        if (entries.length === 0) break;
        await write((first ? "" : ",") + entries.map((entry) => entry.record).join(","));
        first = false;
        position = entries.at(-1)?.position ?? position;
        if (entries.length < ENTRIES_PAGE) break;
      }
      await write("]}\n");
      records += 1;
      options.onRecord?.(records);
    }
    after = heads.at(-1)?.id ?? null;
    if (heads.length < OWNERS_PAGE) break;
  }
  return records;
};

export const exportRecords = async (
  db: Queryable,
  exportName: ExportKind | (string & {}),
  out: Writable,
  options: Options = {},
): Promise<{ records: number }> => {
  const kinds: readonly RecordKind[] = options.operations === undefined ? recordKinds : kindsOf(options.operations);
  const kind: RecordKind | undefined = kinds.find((candidate) => candidate.exportName === exportName);
  if (kind === undefined) return { records: 0 };
  const write = writer(out);
  const records = await (kind.tables.entries === undefined ? exportSingles : exportLists)(db, kind, write, options);
  return { records };
};
