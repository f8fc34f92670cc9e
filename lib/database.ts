import { alertsPolicySql } from "@/lib/alerts/policy-sql";
import { creditsPolicySql } from "@/lib/credits/policy-sql";
import { openDatabase, processDatabase, type Db, type OpenOptions } from "@/lib/db/client";
import type { Migrate } from "@/lib/db/client";
import { applyMigrations, listMigrations, type Migration, type PolicySql } from "@/lib/db/migrate";
import { policyScript, readSqlFile } from "@/lib/db/policy";
import { keysRefillSql, keysUsableSql } from "@/lib/keys/policy-sql";
import { kindsOf, registry } from "@/lib/operations";
import type { RecordKind } from "@/lib/records/kinds";
import { usagePolicySql } from "@/lib/usage/policy-sql";

export type { Db, OpenOptions, Queryable, Transaction } from "@/lib/db/client";

/**
 * The app's database: the client of lib/db, migrated with lib/db/migrations and the policy SQL
 * the domains list (docs/architecture.md "Migrations"). Every opener — the server, the CLIs, the
 * tests — opens it from here, so the schema is assembled in this one place.
 */

/** The policy files of each repeatable migration, in the order applied: each may use what an earlier one defines. */
export const policySql: PolicySql = {
  "0006_credit_policy": [...keysUsableSql, ...usagePolicySql, ...creditsPolicySql],
  "0011_key_policies_sql": [...keysRefillSql, ...alertsPolicySql],
};

/** The credit policy's files (migration 0006), and the policy as one script. */
export const POLICY_FILES = policySql["0006_credit_policy"];
export const creditPolicySql = (root?: string): string => policyScript(POLICY_FILES, root);

/** Every migration of the app, in the order applied. */
export const migrations: Migration[] = listMigrations(policySql);

/** Applies what is not yet recorded; returns the ids applied. */
export const migrate = (db: Db): Promise<string[]> => applyMigrations(db, policySql);

/**
 * The migrations, then the tables of each kind of record that declares its own (`schemaSql` in
 * lib/records/kinds.ts: CREATE TABLE IF NOT EXISTS, so applying it again changes nothing).
 */
export const migrateWithKinds =
  (kinds: readonly RecordKind[], root: string = process.cwd()): Migrate =>
  async (db) => {
    const applied = await migrate(db);
    const declared = kinds.flatMap(({ schemaSql }) => (schemaSql === undefined ? [] : [schemaSql]));
    for (const file of declared) await db.exec(readSqlFile(root, file, "record kind's schema file"));
    return applied;
  };

/** Opens a database and brings its schema up to date, with the tables of the registry's kinds. */
export const openDb = (options: OpenOptions, kinds: readonly RecordKind[] = kindsOf(registry)): Promise<Db> =>
  openDatabase(options, migrateWithKinds(kinds));

/** The process-wide database (lib/db/client.ts processDatabase). */
export const { getDb, closeDb } = processDatabase(openDb);
