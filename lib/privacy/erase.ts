import type { Queryable } from "@/lib/db/client";
import { kindsOf, registry, type Registry } from "@/lib/operations";
import { kindIn, kindsListing, type RecordKind } from "@/lib/records/kinds";
import { eraseFromBatchPages } from "./batch-pages";
import { entrySubjectSql } from "./listed-subjects";
import { storedSpellings } from "./spellings";
import type { Subject } from "./subjects";

/**
 * Deletes every stored record of a subject, inside the caller's transaction: the record store,
 * the upstream cache (its pages and cursors), batch result pages — and, for a subject listed in
 * other subjects' lists (a pin-board user among followers), its entries there — under every
 * spelling of the subject the store holds (lib/privacy/spellings.ts). Returns how many of each
 * went (counts only: the audit log records these, never the data). Tables and columns come only
 * from the kinds table (lib/records/kinds.ts), never from input.
 */
export type Erased = { records: number; cachePages: number; followerEntries: number; batchPages: number };

const count = async (tx: Queryable, sql: string, params: unknown[]): Promise<number> => (await tx.query(sql, params)).length;

/**
 * Removes a subject from the lists of one kind that hold it. A list of the store keeps its order
 * with the gap closed (positions renumbered, the count one lower), so every page stays reachable
 * through offset cursors and is one entry shorter where it held the subject. A list cached from
 * the provider is dropped instead: its pages map to the provider's own positions and are fetched again.
 */
const eraseListedEntries = async (tx: Queryable, list: RecordKind, ids: string[]): Promise<number> => {
  const { owners, idColumn, entries } = list.tables;
  if (entries?.subjects === undefined) return 0;
  const { table, ownerColumn, countColumn } = entries;
  const removed = await tx.query<{ owner: string; position: number }>(
    `DELETE FROM ${table} WHERE ${entrySubjectSql(entries.subjects.path)} = ANY($1::text[]) RETURNING ${ownerColumn} AS owner, position`,
    [ids],
  );
  const byList = new Map<string, number[]>();
  for (const row of removed) byList.set(row.owner, [...(byList.get(row.owner) ?? []), row.position]);
  for (const [owner, positions] of byList) {
    const head = await tx.query<{ source: string }>(`SELECT source FROM ${owners} WHERE ${idColumn} = $1 FOR UPDATE`, [owner]);
    if (head[0]?.source === "upstream") {
      await tx.query("DELETE FROM upstream_pages WHERE kind = $2 AND subject = $1", [owner, list.cacheKind]);
      await tx.query(`DELETE FROM ${owners} WHERE ${idColumn} = $1`, [owner]);
      continue;
    }
    // Two steps through negative positions: one UPDATE moving rows down could collide with the key.
    await tx.query(
      `UPDATE ${table} f SET position = -1 - (f.position - (SELECT count(*) FROM unnest($2::integer[]) AS r(gone) WHERE r.gone < f.position))::integer
       WHERE f.${ownerColumn} = $1 AND f.position > $3`,
      [owner, positions, Math.min(...positions)],
    );
    await tx.query(`UPDATE ${table} SET position = -1 - position WHERE ${ownerColumn} = $1 AND position < 0`, [owner]);
    await tx.query(`UPDATE ${owners} SET ${countColumn} = GREATEST(0, ${countColumn} - $2) WHERE ${idColumn} = $1`, [owner, positions.length]);
  }
  return removed.length;
};

const eraseRecords = async (tx: Queryable, kind: RecordKind, spellings: string[]): Promise<number> => {
  const { owners, idColumn, cursors } = kind.tables;
  if (cursors) await tx.query(`DELETE FROM ${cursors.table} WHERE ${cursors.ownerColumn} = ANY($1::text[])`, [spellings]);
  return count(tx, `DELETE FROM ${owners} WHERE ${idColumn} = ANY($1::text[]) RETURNING ${idColumn}`, [spellings]);
};

export const eraseSubject = async (tx: Queryable, subject: Subject, operations: Registry = registry): Promise<Erased> => {
  const kinds = kindsOf(operations);
  const kind = kindIn(kinds, subject.kind);
  const spellings = await storedSpellings(tx, subject, kinds);
  const records = await eraseRecords(tx, kind, spellings);
  const cachePages = await count(tx, "DELETE FROM upstream_pages WHERE kind = $1 AND subject = ANY($2::text[]) RETURNING page", [
    kind.cacheKind,
    spellings,
  ]);
  let followerEntries = 0;
  for (const list of kindsListing(subject.kind, kinds)) followerEntries += await eraseListedEntries(tx, list, spellings);
  const batchPages = await eraseFromBatchPages(tx, subject, operations);
  return { records, cachePages, followerEntries, batchPages };
};

/** The sweep's statements, in order: records of suppressed subjects, provider lists listing one, cached pages. */
const sweepStatements = (kinds: readonly RecordKind[]): { sql: string; params: string[] }[] => [
  ...kinds.map(({ subject, tables: { owners, idColumn } }) => ({
    sql: `DELETE FROM ${owners} o USING suppressions s WHERE s.kind = $1 AND s.subject = o.${idColumn} RETURNING o.${idColumn}`,
    params: [subject],
  })),
  ...kinds.flatMap(({ cacheKind, tables: { owners, idColumn, entries } }) =>
    entries?.subjects === undefined
      ? []
      : [
          {
            sql: `WITH gone AS (
       DELETE FROM ${owners} u WHERE u.source = 'upstream' AND EXISTS (
         SELECT 1 FROM ${entries.table} f JOIN suppressions s ON s.kind = $1 AND s.subject = ${entrySubjectSql(entries.subjects.path, "f")}
         WHERE f.${entries.ownerColumn} = u.${idColumn})
       RETURNING u.${idColumn} AS owner)
     DELETE FROM upstream_pages p USING gone WHERE p.kind = $2 AND p.subject = gone.owner RETURNING gone.owner`,
            params: [entries.subjects.kind, cacheKind],
          },
        ],
  ),
  ...kinds.map(({ subject, cacheKind }) => ({
    sql: "DELETE FROM upstream_pages p USING suppressions s WHERE s.kind = $1 AND p.kind = $2 AND s.subject = p.subject RETURNING p.subject",
    params: [subject, cacheKind],
  })),
];

/**
 * Erases again what reached the store after a suppression: an upstream answer that was already
 * in flight when the subject was suppressed, or a provider list listing a suppressed subject
 * (cached lists holding one are dropped, to be fetched again). Set-based, for the periodic
 * sweep; returns how many records went.
 */
export const sweepSuppressed = async (db: Queryable, operations: Registry = registry): Promise<number> => {
  let erased = 0;
  for (const { sql, params } of sweepStatements(kindsOf(operations))) erased += await count(db, sql, params);
  return erased;
};
