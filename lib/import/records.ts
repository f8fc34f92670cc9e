import { isObject, type Checked } from "./check";
import { claimOrder, claimOrderOf, importLines, type ImportRecord } from "./lines";
import type { ImportLine, LineRecord } from "./record-line";

export type { ImportRecord } from "./lines";

/**
 * What one value of an import file is, checked with the API's own schemas (lib/records/records.ts)
 * by the line of the kind that claims it (lib/import/lines.ts). Lists are checked entry by entry
 * (lib/import/check.ts), so a list of 200,000 entries is never held twice.
 */
type Classified = { ok: true; record: ImportRecord } | { ok: false; message: string };

const listed = (names: string[]): string =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1) ?? ""}`;

const notARecord = (lines: readonly ImportLine<ImportRecord>[]) => `not a record: expected ${listed(lines.map((line) => line.describe))}`;

type Classifier = (value: unknown) => Checked<LineRecord<ImportRecord>>;

/** Classifies values with these lines (lib/import/lines.ts importLinesOf: a registry's kinds). */
export const classifierOf = (lines: readonly ImportLine<ImportRecord>[], order = claimOrderOf(lines)): Classifier => {
  const message = notARecord(lines);
  return (value) => {
    if (!isObject(value)) return { ok: false, message: "expected a JSON object" };
    const line = order.find((candidate) => candidate.claims(value));
    if (line === undefined) return { ok: false, message };
    return line.classify(value);
  };
};

/** The value as a record of the kind that claims it, bound to that kind's line (the importer's form). */
export const classifyLine: Classifier = classifierOf(importLines, claimOrder);

export const classifyRecord = (value: unknown): Classified => {
  const classified = classifyLine(value);
  return classified.ok ? { ok: true, record: classified.value.data } : classified;
};
