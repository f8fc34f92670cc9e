import { recordKindOf, type RecordKind } from "@/lib/records/kinds";
import { entrySubject } from "./listed-subjects";

/**
 * What an import may not store: a suppressed subject's record is skipped, and a suppressed
 * subject is left out of the lists it appears in (a pin-board user among followers: the kinds
 * table's `entries.subjects`, lib/records/kinds.ts). Each is reported like a bad record
 * (`npm run import` exits 3), naming the subject. Subjects compare in their canonical spelling.
 */
export type Screenable = {
  kind: RecordKind;
  /** The subject the record is of, as written. */
  id: string;
  /** A list's entries, or null for a single record. */
  entries: readonly unknown[] | null;
};

/** Skip the record, or keep it without the entries at `leftOut`; `problems` says why. */
export type Screened = { skipped: boolean; leftOut: ReadonlySet<number>; problems: string[] };

const named = (kind: RecordKind, subject: string) => `${kind.label.toLowerCase()} ${subject}`;

/** Suppressed subjects by subject kind, in their canonical spelling (lib/privacy/suppressions.ts). */
type Suppressed = ReadonlyMap<string, ReadonlySet<string>>;

// The kind's canonical spelling, as lib/records/canonical-subject.ts's subjectKey reads it.
const has = (suppressed: Suppressed, kind: RecordKind, subject: string) =>
  suppressed.get(kind.subject)?.has(kind.canonical(subject) ?? subject) ?? false;

export const screenSuppressed = (record: Screenable, suppressed: Suppressed): Screened => {
  const { kind, id, entries } = record;
  if (has(suppressed, kind, id)) return { skipped: true, leftOut: new Set(), problems: [`${named(kind, id)} is suppressed: skipped`] };
  const kept: Screened = { skipped: false, leftOut: new Set(), problems: [] };
  const listed = kind.tables.entries?.subjects;
  const listedKind = listed === undefined ? undefined : recordKindOf(listed.kind);
  if (entries === null || listed === undefined || listedKind === undefined || (suppressed.get(listedKind.subject)?.size ?? 0) === 0) return kept;
  const field = kind.tables.entries?.field ?? "";
  const leftOut = new Set<number>();
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const entryId = entrySubject(entry, listed.path);
    if (entryId === undefined || !has(suppressed, listedKind, entryId)) return;
    leftOut.add(index);
    problems.push(`${field}.${index}: ${named(listedKind, entryId)} is suppressed: left out`);
  });
  return { skipped: false, leftOut, problems };
};
