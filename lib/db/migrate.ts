import type { Db } from "./client";
import { migrations } from "./migrations";

// Any fixed number: serialises migrations of several instances starting at once on PostgreSQL.
const MIGRATION_LOCK_ID = 7_236_001;

/** Applies the migrations not yet recorded, each in its own transaction. */
export const migrate = async (db: Db): Promise<string[]> => {
  const applied: string[] = [];
  await db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
  );
  await db.transaction(async (tx) => {
    if (db.kind === "postgres") await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    const done = new Set(
      (await tx.query<{ id: string }>("SELECT id FROM schema_migrations")).map((row) => row.id),
    );
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (id) VALUES ($1)", [migration.id]);
      applied.push(migration.id);
    }
  });
  return applied;
};
