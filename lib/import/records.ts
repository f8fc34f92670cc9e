import { isObject, type Checked } from "./check";
import { claimOrder, importLines, type ImportRecord } from "./lines";
import type { LineRecord } from "./record-line";

export type { ImportRecord } from "./lines";

/**
 * What one value of an import file is, checked with the API's own schemas (lib/records/records.ts)
 * by the line of the kind that claims it (lib/import/lines.ts). Lists are checked entry by entry
 * (lib/import/check.ts), so a list of 200,000 entries is never held twice.
 */
type Classified = { ok: true; record: ImportRecord } | { ok: false; message: string };

const listed = (names: string[]): string =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1) ?? ""}`;

const NOT_A_RECORD = `not a record: expected ${listed(importLines.map((line) => line.describe))}`;

/** The value as a record of the kind that claims it, bound to that kind's line (the importer's form). */
export const classifyLine = (value: unknown): Checked<LineRecord<ImportRecord>> => {
  if (!isObject(value)) return { ok: false, message: "expected a JSON object" };
  const line = claimOrder.find((candidate) => candidate.claims(value));
  if (line === undefined) return { ok: false, message: NOT_A_RECORD };
  return line.classify(value);
};

export const classifyRecord = (value: unknown): Classified => {
  const classified = classifyLine(value);
  return classified.ok ? { ok: true, record: classified.value.data } : classified;
};
