import type { Queryable } from "@/lib/db/client";
import { kindIn, type RecordKind } from "@/lib/records/kinds";
import type { Subject } from "./subjects";

/**
 * The keys under which the store may hold a subject's records. The store keeps a record under the
 * spelling it arrived with (an upstream page under the URN a client asked for, an imported id as
 * written), so erasure looks for each spelling that reads as the subject: an id of digits with up
 * to 20 digits of leading zeros, and, for a kind whose ids are not digits (its `spellingPattern`
 * in lib/records/kinds.ts), the ids stored under that pattern whose canonical form it is.
 */
const MAX_ID_DIGITS = 20;

const paddedIds = (id: string): string[] =>
  /^\d+$/.test(id) ? Array.from({ length: Math.max(1, MAX_ID_DIGITS - id.length + 1) }, (_, zeros) => "0".repeat(zeros) + id) : [id];

export const storedSpellings = async (db: Queryable, subject: Subject, kinds: readonly RecordKind[]): Promise<string[]> => {
  const kind = kindIn(kinds, subject.kind);
  if (kind.spellingPattern === undefined) return paddedIds(subject.subject);
  const { owners, idColumn } = kind.tables;
  // The pattern narrows the rows (its "_" matches any character: the exact test is below).
  const rows = await db.query<{ id: string }>(
    `SELECT ${idColumn} AS id FROM ${owners} WHERE lower(${idColumn}) LIKE $1
     UNION SELECT subject AS id FROM upstream_pages WHERE kind = $2 AND lower(subject) LIKE $1`,
    [kind.spellingPattern(subject.subject), kind.cacheKind],
  );
  return [...new Set([subject.subject, ...rows.map((row) => row.id).filter((id) => (kind.canonical(id) ?? id) === subject.subject)])];
};
