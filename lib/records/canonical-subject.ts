import { kindOf } from "./kinds";
import type { SubjectKind } from "./subject-kinds";

export { canonicalNumber } from "./subject-ids";

/**
 * The one spelling of each data subject. A provider may read one subject under several spellings
 * (a URN's type in any case, an id with leading zeros read as the number it is), so suppression,
 * erasure and subject access compare subjects only in this form — the form a suppression is
 * stored in, a lookup is checked in and a record's own id is checked in. Each kind of record
 * declares its reader (lib/records/kinds.ts, from lib/records/subject-ids.ts).
 */

/** The subject's canonical id, or null when the text is not one of its kind. */
export const canonicalSubject = (kind: SubjectKind, raw: string): string | null => kindOf(kind).canonical(raw);

/** The canonical id of a subject a lookup or a record names (a text that is none stays as it is). */
export const subjectKey = (kind: SubjectKind, raw: string): string => canonicalSubject(kind, raw) ?? raw;
