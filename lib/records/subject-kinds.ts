import { recordKinds, type SubjectKind } from "./kinds";

/**
 * The kinds of data subject an operation's input names (each operation descriptor declares its
 * `subjectKind`): what suppression and subject access work on — one per kind of record
 * (lib/records/kinds.ts), labelled as its row says. Browser-safe: plain data only.
 */
export type { SubjectKind } from "./kinds";

export const subjectKindLabels = Object.fromEntries(
  recordKinds.map((kind) => [kind.subject, { label: kind.label, hint: kind.hint }]),
) as Record<SubjectKind, { label: string; hint: string }>;
