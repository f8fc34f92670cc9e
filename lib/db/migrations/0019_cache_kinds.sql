-- The upstream cache's page kinds are the record kinds' cacheKind (lib/records/kinds.ts, or a kind
-- declared with its operation), not a fixed list: a new kind of record needs no migration of this table.
ALTER TABLE upstream_pages DROP CONSTRAINT IF EXISTS upstream_pages_kind_check;
