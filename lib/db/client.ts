import path from "node:path";
import type { Pool } from "pg";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { secureDataDir } from "./data-dir";
import { acquireLock, assertNotLocked, pgliteLockPath } from "./lock";
import { startPgliteThread } from "./pglite-thread";
import { observeStatement } from "./observe";
import type { Db, Transaction } from "./types";
import { startUpkeep } from "./upkeep";

export type { Db, EmbeddedWorkerState, Queryable, Transaction } from "./types";

/**
 * `upkeep: false` leaves out the embedded database's background analysis (lib/db/upkeep.ts) —
 * for a test of that analysis, which a background pass would race.
 */
export type OpenOptions = { dataDir: string; databaseUrl?: string; timeoutMs: number; upkeep?: boolean };

const openPglite = async (dataDir: string): Promise<Db> => {
  const dbDir = path.join(dataDir, "pglite");
  const lockPath = pgliteLockPath(dataDir);
  // Refused while another process holds the database, before its folder is touched.
  assertNotLocked(lockPath);
  const secured = secureDataDir(dataDir);
  if (secured.tightened.length > 0) {
    // console, not the log: a CLI opens the database too, and its stdout is its answer (the server
    // turns console lines into log lines).
    console.warn(`[db] DATA_DIR ${secured.dataDir} was readable by other users: made ${secured.tightened.length} entries owner-only.`);
  }
  const release = acquireLock(lockPath);
  try {
    const thread = await startPgliteThread(dbDir);
    const on = (tx?: number): Transaction => ({
      query: <Row>(text: string, params: unknown[] = []) =>
        observeStatement("pglite", "query", text, () => thread.call<Row[]>({ op: "query", text, params, tx })),
      exec: async (sql) => {
        await thread.call({ op: "exec", sql, tx });
      },
    });
    return {
      kind: "pglite",
      embeddedWorker: () => (thread.alive() ? "alive" : "stopped"),
      ...on(),
      longReads: {
        query: <Row>(text: string, params: unknown[] = []) =>
          observeStatement("pglite", "long_read", text, () => thread.call<Row[]>({ op: "query", text, params, yielding: true })),
      },
      transaction: (work) => observeStatement("pglite", "transaction", "BEGIN", async () => {
        const tx = await thread.call<number>({ op: "begin" });
        let ended = false;
        try {
          const result = await work(on(tx));
          ended = true;
          await thread.call({ op: "end", tx, commit: true });
          return result;
        } catch (error) {
          if (!ended) await thread.call({ op: "end", tx, commit: false }).catch(() => undefined);
          throw error;
        }
      }),
      close: async () => {
        try {
          await thread.close();
        } finally {
          release();
        }
        // Table files PGlite created while open are 0666 (safe inside the 0700 directory): tighten them too.
        secureDataDir(dataDir);
      },
    };
  } catch (error) {
    release();
    throw error;
  }
};

const openPostgres = async (databaseUrl: string, timeoutMs: number): Promise<Db> => {
  const { default: pg } = await import("pg");
  // bigint (int8) columns are credit counts far below 2^53: read them as numbers.
  pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
  const pool: Pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
  });
  // An idle client that loses its server must not crash the process: the pool replaces it.
  pool.on("error", (error) => log.error("db: idle PostgreSQL client error", { err: error }));
  const run = async <Row>(text: string, params?: unknown[]) => (await pool.query(text, params as unknown[])).rows as Row[];
  const query = <Row>(text: string, params?: unknown[]) => observeStatement("postgres", "query", text, () => run<Row>(text, params));
  const longRead = <Row>(text: string, params?: unknown[]) => observeStatement("postgres", "long_read", text, () => run<Row>(text, params));
  return {
    kind: "postgres",
    embeddedWorker: () => "absent",
    query,
    longReads: { query: longRead },
    exec: async (sql) => {
      await pool.query(sql);
    },
    transaction: (work) => observeStatement("postgres", "transaction", "BEGIN", async () => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work({
          query: <Row>(text: string, params?: unknown[]) =>
            observeStatement("postgres", "query", text, async () => (await client.query(text, params as unknown[])).rows as Row[]),
          exec: async (sql: string) => {
            await client.query(sql);
          },
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }),
    close: () => pool.end(),
  };
};

/**
 * Brings a database's schema up to date. The app's (lib/database.ts) applies lib/db/migrations
 * with the policy SQL its domains list: the client knows no domain.
 */
export type Migrate = (db: Db) => Promise<unknown>;

/** Opens the configured database and brings its schema up to date with `migrate`. */
export const openDatabase = async (options: OpenOptions, migrate: Migrate): Promise<Db> => {
  const db = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.timeoutMs)
    : await openPglite(options.dataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  if (db.kind !== "pglite" || options.upkeep === false) return db;
  // No autovacuum inside PGlite: its tables are analysed here (lib/db/upkeep.ts).
  const stopUpkeep = startUpkeep(db.longReads, (error) => log.warn("db: analysing tables failed", { err: error }));
  return {
    ...db,
    close: async () => {
      await stopUpkeep();
      await db.close();
    },
  };
};

const holder = globalThis as typeof globalThis & { __socialLookupDb?: Promise<Db> };

/**
 * The process-wide database, opened with `open` on first use. Kept on globalThis because Next
 * bundles route handlers separately and a module-level singleton could otherwise be opened twice
 * (fatal for PGlite).
 */
export const processDatabase = (open: (options: OpenOptions) => Promise<Db>) => {
  const getDb = (): Promise<Db> => {
    if (!holder.__socialLookupDb) {
      const config = env();
      holder.__socialLookupDb = open({
        dataDir: config.dataDir,
        databaseUrl: config.DATABASE_URL,
        timeoutMs: config.DB_TIMEOUT_MS,
      }).catch((error: unknown) => {
        holder.__socialLookupDb = undefined;
        throw error;
      });
    }
    return holder.__socialLookupDb;
  };
  const closeDb = async (): Promise<void> => {
    const pending = holder.__socialLookupDb;
    holder.__socialLookupDb = undefined;
    if (pending) await (await pending).close();
  };
  return { getDb, closeDb };
};
