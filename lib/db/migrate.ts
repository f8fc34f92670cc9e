import type { Db } from "./types";
import { migrations } from "./migrations";
import { checksum } from "./policy";

// Any fixed number: serialises migrations of several instances starting at once on PostgreSQL.
const MIGRATION_LOCK_ID = 7_236_001;

/**
 * Applies the migrations not yet recorded, and the repeatable ones whose text changed since they
 * were recorded, in one transaction. Returns the ids applied.
 */
export const migrate = async (db: Db): Promise<string[]> => {
  const applied: string[] = [];
  await db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());" +
      "ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text",
  );
  await db.transaction(async (tx) => {
    if (db.kind === "postgres") await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    const done = new Map(
      (await tx.query<{ id: string; checksum: string | null }>("SELECT id, checksum FROM schema_migrations")).map((row) => [
        row.id,
        row.checksum,
      ]),
    );
    for (const migration of migrations) {
      const recorded = done.get(migration.id);
      if (recorded !== undefined && !migration.repeatable) continue;
      const sql = migration.sql();
      const sum = migration.repeatable ? checksum(sql) : null;
      if (recorded !== undefined && recorded === sum) continue;
      await tx.exec(sql);
      await tx.query(
        `INSERT INTO schema_migrations (id, checksum) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [migration.id, sum],
      );
      applied.push(migration.id);
    }
  });
  return applied;
};
