import fs from "node:fs";
import path from "node:path";
import { MIGRATION_ORDER, REPEATABLE_MIGRATIONS, type RepeatableMigrationId } from "./migrations/order";
import { checksum, policyScript, readSqlFile } from "./policy";
import type { Db } from "./types";

/** Where the plain migrations are, from the app directory (read at run time, as lib/db/policy.ts reads the policy files). */
export const MIGRATIONS_DIR = "lib/db/migrations";

/** The policy files of each repeatable migration, in order, as the domains list them (lib/database.ts). */
export type PolicySql = Readonly<Record<RepeatableMigrationId, readonly string[]>>;

/**
 * repeatable: the migration's SQL is the current text of files that may change (the domains'
 * policy, lib/db/policy.ts); it is applied again whenever that text changes (its checksum is
 * recorded), so editing a policy file is enough — its CREATE OR REPLACE statements are safe to
 * run again. A plain migration runs once and is never edited.
 */
export type Migration = { id: string; sql: () => string; repeatable?: boolean };

const isRepeatable = (id: string): id is RepeatableMigrationId => (REPEATABLE_MIGRATIONS as readonly string[]).includes(id);

/** Every migration in the order lib/db/migrations/order.ts gives; their SQL is read when asked for. */
export const listMigrations = (policySql: PolicySql, root: string = process.cwd()): Migration[] =>
  MIGRATION_ORDER.map((id) =>
    isRepeatable(id)
      ? { id, sql: () => policyScript(policySql[id], root), repeatable: true }
      : { id, sql: () => readSqlFile(root, path.join(MIGRATIONS_DIR, `${id}.sql`), "migration") },
  );

/** A .sql file of the migrations folder that the order does not list would never run: refused. */
const assertAllListed = (root: string): void => {
  const folder = path.join(root, MIGRATIONS_DIR);
  // Without the folder, the first migration read says what is missing and where it was looked for.
  if (!fs.existsSync(folder)) return;
  const unlisted = fs
    .readdirSync(folder)
    .filter((file) => file.endsWith(".sql") && !MIGRATION_ORDER.includes(file.slice(0, -".sql".length)));
  if (unlisted.length > 0) {
    throw new Error(`Migrations not listed in ${MIGRATIONS_DIR}/order.ts, so never applied: ${unlisted.join(", ")}.`);
  }
};

// Any fixed number: serialises migrations of several instances starting at once on PostgreSQL.
const MIGRATION_LOCK_ID = 7_236_001;

/**
 * Applies the migrations not yet recorded, and the repeatable ones whose text changed since they
 * were recorded, in one transaction. Returns the ids applied.
 */
export const applyMigrations = async (db: Db, policySql: PolicySql, root: string = process.cwd()): Promise<string[]> => {
  assertAllListed(root);
  const migrations = listMigrations(policySql, root);
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
