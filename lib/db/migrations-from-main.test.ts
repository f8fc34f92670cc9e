import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { migrate, migrations, policySql } from "@/lib/database";
import { databasesOfRun, embeddedInRun, openForSuite, pgliteDatabase, postgresDatabase, type TestDatabase } from "@/tests/support/databases";
import { applyMigrations, MIGRATIONS_DIR } from "./migrate";
import type { Queryable } from "./types";

/**
 * Migrations are files (docs/architecture.md "Migrations"): a database that main's code migrated
 * when they were strings in lib/db/migrations.ts is up to date for today's loader, and its schema
 * is byte for byte the one a fresh database gets. Main's code is read from the repository's
 * history — lib/db/{migrations,migrate,policy}.ts at MAIN, the last commit before the migrations
 * became files — into a folder of the repository for the run (so a clone needs its history).
 */
const MAIN = "105ad0c";
const MAIN_FILES = ["migrations.ts", "migrate.ts", "policy.ts"];
const root = path.resolve(__dirname, "../..");
const mainDir = fs.mkdtempSync(path.join(root, "tests", ".main-migrations-"));
afterAll(() => fs.rmSync(mainDir, { recursive: true, force: true }));
for (const file of MAIN_FILES) {
  let text: string;
  try {
    text = execFileSync("git", ["show", `${MAIN}:lib/db/${file}`], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    throw new Error(`main's migration code (commit ${MAIN}) must be in the clone's history (clone without --depth): ${String(error)}`);
  }
  // The one import that points outside the three files: the database types, still in lib/db. Main's
  // code reads its policy files from the app directory: here, main's own files, copied below.
  fs.writeFileSync(
    path.join(mainDir, file),
    text
      .replace('from "./types"', 'from "@/lib/db/types"')
      .replace("creditPolicySql()", `creditPolicySql(${JSON.stringify(mainDir)})`)
      .replace("keyPolicySql()", `keyPolicySql(${JSON.stringify(mainDir)})`),
  );
}
const MAIN_POLICY_FILES = [
  "lib/keys/usable-keys.sql",
  "lib/usage/daily.sql",
  "lib/credits/spent-today.sql",
  "lib/credits/settle.sql",
  "lib/credits/sweep.sql",
  "lib/credits/void.sql",
  "lib/keys/refill.sql",
  "lib/alerts/thresholds.sql",
];
for (const file of MAIN_POLICY_FILES) {
  fs.mkdirSync(path.dirname(path.join(mainDir, file)), { recursive: true });
  fs.writeFileSync(
    path.join(mainDir, file),
    execFileSync("git", ["show", `${MAIN}:${file}`], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
  );
}
type MainMigration = { id: string; repeatable?: boolean; sql(): string };
const { migrations: mainMigrations } = (await import(path.join(mainDir, "migrations.ts"))) as { migrations: MainMigration[] };
const { migrate: mainMigrate } = (await import(path.join(mainDir, "migrate.ts"))) as { migrate: typeof migrate };

/** The schema as the catalog describes it, the database's own schema name left out. */
const catalogDump = async (db: Queryable): Promise<string> => {
  const [{ schema } = { schema: "" }] = await db.query<{ schema: string }>("SELECT current_schema() AS schema");
  const inSchema = "(SELECT oid FROM pg_namespace WHERE nspname = current_schema())";
  const sections: Record<string, string> = {
    relations: `SELECT relname, relkind FROM pg_class WHERE relnamespace = ${inSchema} ORDER BY relname`,
    columns: `SELECT table_name, ordinal_position, column_name, data_type, udt_name, column_default, is_nullable
      FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    indexes: "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY tablename, indexname",
    constraints: `SELECT conrelid::regclass::text AS relation, conname, contype, pg_get_constraintdef(oid) AS definition
      FROM pg_constraint WHERE connamespace = ${inSchema} ORDER BY 1, 2`,
    functions: `SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS arguments, pg_get_function_result(p.oid) AS result,
        p.prokind, p.provolatile, l.lanname, p.prosrc
      FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.pronamespace = ${inSchema} ORDER BY 1, 2`,
    views: "SELECT viewname, definition FROM pg_views WHERE schemaname = current_schema() ORDER BY viewname",
    triggers: `SELECT tgrelid::regclass::text AS relation, tgname, pg_get_triggerdef(oid) AS definition FROM pg_trigger
      WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = ${inSchema}) ORDER BY 1, 2`,
    sequences: `SELECT sequencename, data_type::text, start_value::text, increment_by::text FROM pg_sequences
      WHERE schemaname = current_schema() ORDER BY sequencename`,
    migrations: "SELECT id, checksum FROM schema_migrations ORDER BY id",
  };
  const lines: string[] = [];
  for (const [name, sql] of Object.entries(sections)) {
    lines.push(`## ${name}`, ...(await db.query(sql)).map((row) => JSON.stringify(row)));
  }
  return lines.join("\n").replaceAll(`${schema}.`, "<schema>.");
};

describe.runIf(embeddedInRun)("the migration files", () => {
  it("keep main's migrations: the plain ones with the same ids, in the same order, each ending with main's statements", () => {
    // The repeatable ones (the policy SQL) keep their ids; their text changes as the policy does,
    // and they are applied after the plain migrations whose columns they read (order.ts).
    const plain = (list: readonly { id: string; repeatable?: boolean }[]) => list.filter(({ repeatable }) => !repeatable).map(({ id }) => id);
    const ids = migrations.map(({ id }) => id);
    expect(plain(migrations).slice(0, plain(mainMigrations).length)).toEqual(plain(mainMigrations));
    for (const main of mainMigrations) {
      const today = migrations.find(({ id }) => id === main.id);
      expect(today?.repeatable ?? false, main.id).toBe(main.repeatable ?? false);
      if (main.repeatable) continue;
      const sql = today?.sql() ?? "";
      // A plain migration's file may open with the comment that stood above its string.
      expect(sql.endsWith(main.sql()) && /^(--.*\n)*$/.test(sql.slice(0, -main.sql().length)), main.id).toBe(true);
    }
    expect(ids.slice(-2)).toEqual(["0006_credit_policy", "0011_key_policies_sql"]);
  });

  it("are all listed in the order: a file the order leaves out is refused before anything is applied", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "sl-migrations-"));
    try {
      fs.cpSync(MIGRATIONS_DIR, path.join(root, MIGRATIONS_DIR), { recursive: true });
      fs.writeFileSync(path.join(root, MIGRATIONS_DIR, "0099_unlisted.sql"), "CREATE TABLE never (id text);\n");
      const untouched = { kind: "pglite", exec: async () => expect.fail("nothing runs"), transaction: async () => expect.fail("nothing runs") };
      await expect(applyMigrations(untouched as never, policySql, root)).rejects.toThrow(
        "Migrations not listed in lib/db/migrations/order.ts, so never applied: 0099_unlisted.sql.",
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

const pairs: { name: string; pair: () => [TestDatabase, TestDatabase] }[] = (await databasesOfRun()).map((name) => ({
  name,
  pair: () => (name === "pglite" ? [pgliteDatabase(), pgliteDatabase()] : [postgresDatabase(), postgresDatabase()]),
}));

describe.each(pairs)("a database migrated by main's code, on $name", ({ pair }) => {
  const [byMain, fresh] = pair();
  const mainDb = openForSuite(byMain, { migrate: mainMigrate, upkeep: false });
  const freshDb = openForSuite(fresh, { upkeep: false });

  it("is recognised: only the migrations added since main's are applied", async () => {
    // The plain migrations added since, then the credit policy, whose text changed since (it reads
    // 0020's pools; 0021 adds the active workspace), and the key policies, whose refills now fill pools (0022).
    const added = [
      "0019_cache_kinds",
      "0020_workspaces",
      "0021_active_workspace",
      "0022_pool_refills",
      "0023_workspace_deletion",
      "0024_service_instances",
      "0025_user_origin",
      "0026_handover_attribution",
      "0006_credit_policy",
      "0011_key_policies_sql",
    ];
    expect(migrations.filter(({ id }) => !mainMigrations.some((main) => main.id === id)).map(({ id }) => id)).toEqual(added.slice(0, 8));
    expect(await migrate(mainDb())).toEqual(added);
    expect(await migrate(mainDb())).toEqual([]);
  });

  it("has byte for byte the schema a fresh database migrated by today's code has", async () => {
    const [main, today] = [await catalogDump(mainDb()), await catalogDump(freshDb())];
    expect(main).toContain('"viewname":"usable_keys"');
    expect(main).toContain('"proname":"settle_requests"');
    expect(main).toContain('{"id":"0018_batch_key_owner","checksum":null}');
    expect(main).toContain('{"id":"0019_cache_kinds","checksum":null}');
    expect(main).toBe(today);
  });
});
