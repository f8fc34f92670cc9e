/**
 * Paths into a record, the small language the registry declares paging and CSV rows in (so the
 * SDKs, generated from the registry, follow them without code of their own per operation):
 * dot-separated field names, and a field ending in `[]` stands for each entry of that list.
 *   "page_info.end_cursor"  one value
 *   "followers[].node"      the node of each follower
 *   "data[]"                each entry of data
 * The SDKs (clients/typescript/src/paths.ts, clients/python/social_lookup/_paths.py) read paths
 * the same way.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The value at a path without `[]`, or undefined when the record has none. */
export const valueAt = (record: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, field) => (isRecord(value) ? value[field] : undefined), record);

/** Every value a path reaches: one for a path without `[]`, one per entry for each `[]` (none when a list is missing). */
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
