import type { Queryable } from "@/lib/db/client";
import { subjectKey } from "@/lib/records/canonical-subject";
import type { Subject } from "./subjects";

/**
 * The keys under which the store may hold a subject's records. The store keeps a record under the
 * spelling it arrived with (an upstream page under the URN a client asked for, an imported id as
 * written), so erasure looks for each spelling that reads as the subject: an id of digits with up
 * to 20 digits of leading zeros, and the URNs stored for its type whose canonical form it is.
 */
const MAX_ID_DIGITS = 20;

const paddedIds = (id: string): string[] =>
  /^\d+$/.test(id) ? Array.from({ length: Math.max(1, MAX_ID_DIGITS - id.length + 1) }, (_, zeros) => "0".repeat(zeros) + id) : [id];

export const storedSpellings = async (db: Queryable, subject: Subject): Promise<string[]> => {
  if (subject.kind !== "profile") return paddedIds(subject.subject);
  const type = subject.subject.split(":")[2] ?? "";
  // The prefix narrows the rows (its "_" matches any character: the exact test is below).
  const rows = await db.query<{ urn: string }>(
    `SELECT urn FROM profiles WHERE lower(urn) LIKE $1
     UNION SELECT subject AS urn FROM upstream_pages WHERE kind = 'publications' AND lower(subject) LIKE $1`,
    [`urn:li:${type}:%`],
  );
  return [...new Set([subject.subject, ...rows.map((row) => row.urn).filter((urn) => subjectKey("profile", urn) === subject.subject)])];
};
