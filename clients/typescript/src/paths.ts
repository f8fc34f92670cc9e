/**
 * Paths into a record, as the registry declares paging and CSV rows (lib/operations/paths.ts
 * reads them the same way on the server): dot-separated fields; a field ending in `[]` stands
 * for each entry of that list. "page_info.end_cursor", "followers[].node", "data[]".
 */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The value at a path without `[]`, or undefined. */
export const valueAt = (record: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, field) => (isRecord(value) ? value[field] : undefined), record);

/** Every value a path reaches: one per entry for each `[]`. */
export const valuesAt = (record: unknown, path: string): unknown[] =>
  path.split(".").reduce<unknown[]>(
    (values, field) =>
      values.flatMap((value) => {
        const list = field.endsWith("[]");
        const child = isRecord(value) ? value[list ? field.slice(0, -2) : field] : undefined;
        if (!list) return child === undefined ? [] : [child];
        return Array.isArray(child) ? child : [];
      }),
    [record],
  );
