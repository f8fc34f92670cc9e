import { kindIn } from "@/lib/records/kinds";
import { kindsOf, registry, type Operation, type Registry } from "@/lib/operations";

export type { SubjectKind } from "@/lib/records/subject-kinds";
export { canonicalSubject } from "@/lib/records/canonical-subject";

/**
 * A data subject as suppression and subject access name it: a kind (from the operations
 * registry: each operation declares which subject its input names) and its canonical id — an
 * event id, a pin-board user id or a profile URN, spelt as lib/records/canonical-subject.ts says.
 */
export type Subject = { kind: string; subject: string };

/**
 * The subject kind an operation's input names: its descriptor's (what the console's privacy page
 * labels), else the subject of the kind of record its source declares (an operation whose kind
 * is declared with it, outside the kinds table).
 */
const subjectKindOf = (operation: Operation): string | undefined => operation.subjectKind ?? operation.recordKind?.subject;

/** The subject kinds the registry's operations name, in registry order. */
export const subjectKinds = (operations: Registry = registry): string[] => [
  ...new Set(operations.flatMap((operation) => {
    const kind = subjectKindOf(operation);
    return kind === undefined ? [] : [kind];
  })),
];

/** The operations whose input names a subject of this kind. */
export const operationsNaming = (kind: string, operations: Registry = registry) =>
  operations.filter((operation) => subjectKindOf(operation) === kind);

/** Texts that name the subject in a stored query or record (a pin-board user also by its node id). */
export const namesOf = ({ kind, subject }: Subject, operations: Registry = registry): string[] => [
  subject,
  ...(kindIn(kindsOf(operations), kind).otherNames?.(subject) ?? []),
];

/** The subject's canonical id in its kind's spelling (a text that is none stays as it is). */
export const subjectKeyIn = (operations: Registry, kind: string, raw: string): string => kindIn(kindsOf(operations), kind).canonical(raw) ?? raw;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether a text names the subject as a whole token: event 1000000000000001 is not named by
 * 10000000000000012, nor urn:li:member:3 by urn:li:member:31.
 */
export const textNames = (text: string, subject: Subject, operations: Registry = registry): boolean =>
  namesOf(subject, operations).some((name) => {
    // Digits end at any non-digit (a URL's slash); a URN or node id at what cannot continue it.
    // Nothing starts with "=" (a node id's base64 only ends with it), so a stored query's
    // "urn=…" or "node_id=…" is a boundary before the name.
    const inside = /^\d+$/.test(name) ? "0-9" : "A-Za-z0-9+/=_-";
    const before = inside.replace("=", "");
    return new RegExp(`(^|[^${before}])${escapeRegExp(name)}($|[^${inside}])`).test(text);
  });
