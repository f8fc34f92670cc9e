import type { z } from "zod";

/** How an import file's value is checked against the API's own schemas, and its problems worded. */
export type Checked<Value> = { ok: true; value: Value } | { ok: false; message: string };

const MAX_ISSUES = 3;

export const describeIssues = (error: z.ZodError, prefix: (string | number)[] = []): string =>
  error.issues
    .slice(0, MAX_ISSUES)
    .map((issue) => {
      const where = [...prefix, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))].join(".");
      return `${where || "record"}: ${issue.message}`;
    })
    .join("; ") + (error.issues.length > MAX_ISSUES ? ` (and ${error.issues.length - MAX_ISSUES} more)` : "");

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks every entry of a list. The checked input is kept rather than zod's copy: a copy of
 * 200,000 entries would double the list's memory. That is sound because these schemas only
 * check (no transforms or defaults), and the record writers rebuild each entry field by field,
 * leaving out any extra key.
 */
export const checkEntries = <Entry>(entries: unknown[], schema: z.ZodType<Entry>, field: string): Checked<Entry[]> => {
  for (let index = 0; index < entries.length; index += 1) {
    const parsed = schema.safeParse(entries[index]);
    if (!parsed.success) return { ok: false, message: describeIssues(parsed.error, [field, index]) };
  }
  // Every element passed the schema above.
  return { ok: true, value: entries as Entry[] };
};
