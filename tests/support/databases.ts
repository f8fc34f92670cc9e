import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { migrate, type Db, type OpenOptions } from "@/lib/database";
import { openDatabase, type Migrate } from "@/lib/db/client";
import { copyTemplate } from "./pglite-template";

/**
 * Real databases for tests: a fresh PGlite folder, and — when 127.0.0.1:5432 answers — a fresh
 * schema in PostgreSQL database `test`, or the one UNIT_DATABASES names. Suites run against every
 * database returned.
 */
export type TestDatabase = { name: "pglite" | "postgres"; open(options?: TestOpenOptions): Promise<Db>; cleanup(): Promise<void> };

/**
 * What a suite may change in how its database is opened (see OpenOptions), and how it is
 * migrated: the app's migrations unless told otherwise (an older version's, say).
 */
export type TestOpenOptions = Pick<OpenOptions, "upkeep"> & { migrate?: Migrate };

const POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test";

export const postgresReachable = async (): Promise<boolean> => {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
};

/**
 * The migrated template of the project's global setup (tests/support/pglite-template.ts), or
 * null in a project without it.
 */
export const pgliteTemplate = (): string | null => {
  const folder = inject("pgliteTemplate");
  return typeof folder === "string" && folder !== "" && fs.existsSync(folder) ? folder : null;
};

/**
 * Copies the migrated template into `dataDir` as its embedded database, when the project has one
 * and `dataDir` has none yet: what a test's CLI or server finds there is already migrated.
 */
export const seedFromTemplate = (dataDir: string): void => copyTemplate(pgliteTemplate(), dataDir);

export const pgliteDatabase = (): TestDatabase => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-unit-"));
  return {
    name: "pglite",
    open: ({ migrate: migrateWith = migrate, ...options } = {}) => {
      // A database migrated with the app's migrations starts as a copy of the template, once.
      if (migrateWith === migrate) seedFromTemplate(dataDir);
      return openDatabase({ dataDir, timeoutMs: 5000, ...options }, migrateWith);
    },
    cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
};

export const postgresDatabase = (): TestDatabase => {
  const schema = `sl_unit_${crypto.randomBytes(6).toString("hex")}`;
  const url = `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  let created = false;
  return {
    name: "postgres",
    open: async ({ migrate: migrateWith = migrate, ...options } = {}) => {
      if (!created) {
        const { default: pg } = await import("pg");
        const admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
        await admin.query(`CREATE SCHEMA ${schema}`);
        await admin.end();
        created = true;
      }
      return openDatabase({ dataDir: os.tmpdir(), databaseUrl: url, timeoutMs: 5000, ...options }, migrateWith);
    },
    cleanup: async () => {
      if (!created) return;
      const { default: pg } = await import("pg");
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
};

type DatabaseKind = TestDatabase["name"];

/**
 * The databases this run covers, from UNIT_DATABASES: "pglite" (npm test, the fast lane),
 * "postgres" (npm run test:proofs; fails when 127.0.0.1:5432 is unreachable), unset for both
 * (PostgreSQL when reachable, otherwise a printed reason).
 */
export const databasesOfRun = async (): Promise<DatabaseKind[]> => {
  const chosen = process.env.UNIT_DATABASES ?? "";
  if (chosen === "pglite") return ["pglite"];
  if (chosen === "postgres") {
    if (await postgresReachable()) return ["postgres"];
    throw new Error("UNIT_DATABASES=postgres, but PostgreSQL at 127.0.0.1:5432 is not reachable");
  }
  if (chosen !== "") throw new Error(`UNIT_DATABASES is "${chosen}": pglite, postgres, or unset for both`);
  if (await postgresReachable()) return ["pglite", "postgres"];
  console.log("SKIPPED: PostgreSQL variant — 127.0.0.1:5432 is not reachable");
  return ["pglite"];
};

/**
 * Whether this run covers the embedded database. A database file's tests that use no database
 * run in such a run only (`describe.runIf`), so that the PostgreSQL lane repeats none of them.
 */
export const embeddedInRun = process.env.UNIT_DATABASES !== "postgres";

/** A fresh database of each kind this run covers (databasesOfRun). */
export const testDatabases = async (): Promise<TestDatabase[]> =>
  (await databasesOfRun()).map((kind) => (kind === "pglite" ? pgliteDatabase() : postgresDatabase()));

/**
 * Opens `database` before the suite's tests and closes and removes it after them (vitest hooks);
 * the returned function gives the open Db inside a test.
 */
export const openForSuite = (database: TestDatabase, options?: TestOpenOptions): (() => Db) => {
  let db: Db | null = null;
  beforeAll(async () => {
    db = await database.open(options);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });
  return () => {
    if (db === null) throw new Error(`the ${database.name} database is not open yet`);
    return db;
  };
};
