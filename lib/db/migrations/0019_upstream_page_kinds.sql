-- upstream_pages.kind is the cache kind of a kind of record (lib/records/kinds.ts `cacheKind`).
-- The CHECK listing the first three kept a new kind's pages out of the cache until a migration
-- edited it; the kinds table is now the one list (docs/adding-an-operation.md).
ALTER TABLE upstream_pages DROP CONSTRAINT IF EXISTS upstream_pages_kind_check;
