import { kindOf } from "@/lib/records/kinds";
import { registry, type Registry } from "@/lib/operations";
import type { SubjectKind } from "@/lib/records/subject-kinds";

export type { SubjectKind } from "@/lib/records/subject-kinds";
export { canonicalSubject } from "@/lib/records/canonical-subject";

/**
 * A data subject as suppression and subject access name it: a kind (from the operations
 * registry: each operation declares which subject its input names) and its canonical id — an
 * event id, a pin-board user id or a profile URN, spelt as lib/records/canonical-subject.ts says.
 */
export type Subject = { kind: SubjectKind; subject: string };

/** The subject kinds the registry's operations name, in registry order. */
export const subjectKinds = (operations: Registry = registry): SubjectKind[] => [
  ...new Set(operations.flatMap((operation) => (operation.subjectKind ? [operation.subjectKind] : []))),
];

/** The operations whose input names a subject of this kind. */
export const operationsNaming = (kind: SubjectKind, operations: Registry = registry) =>
  operations.filter((operation) => operation.subjectKind === kind);

/** Texts that name the subject in a stored query or record (a pin-board user also by its node id). */
export const namesOf = ({ kind, subject }: Subject): string[] => [subject, ...(kindOf(kind).otherNames?.(subject) ?? [])];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether a text names the subject as a whole token: event 1000000000000001 is not named by
 * 10000000000000012, nor urn:li:member:3 by urn:li:member:31.
 */
export const textNames = (text: string, subject: Subject): boolean =>
  namesOf(subject).some((name) => {
    // Digits end at any non-digit (a URL's slash); a URN or node id at what cannot continue it.
    const inside = /^\d+$/.test(name) ? "0-9" : "A-Za-z0-9+/=_-";
    return new RegExp(`(^|[^${inside}])${escapeRegExp(name)}($|[^${inside}])`).test(text);
  });
