import type { RecordKind } from "@/lib/records/kinds";

/**
 * A kind of record no operation has — shelves, with their own table and cache kind, named by a
 * profile subject — for the source engine's tests: what the engine and its suppression guard do
 * for it they do from this row alone.
 */
export const shelfKind: RecordKind = {
  subject: "profile",
  cacheKind: "shelves",
  exportName: "shelves",
  ttlVariable: "CACHE_TTL_SHELVES_S",
  label: "Shelf",
  hint: "a shelf code",
  tables: { owners: "shelves", idColumn: "code" },
  file: { idField: "code" },
  access: "shelf",
  canonical: (raw) => (/^[a-z]+$/i.test(raw.trim()) ? raw.trim().toUpperCase() : null),
};
