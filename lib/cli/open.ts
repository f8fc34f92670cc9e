import { env, EnvError } from "@/lib/env";
import { openDb, type Db } from "@/lib/db/client";
import { DatabaseLockedError } from "@/lib/db/lock";

/** Opens the configured database for a command-line tool, turning known failures into a clear message. */
export const withCliDb = async <T>(work: (db: Db) => Promise<T>): Promise<T> => {
  const config = env();
  const db = await openDb({ dataDir: config.dataDir, databaseUrl: config.DATABASE_URL, timeoutMs: config.DB_TIMEOUT_MS });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
};

export class UsageError extends Error {}

/** Runs a CLI main function: expected failures print one line and exit 1 (2 for usage); no stack traces. */
export const runCli = (main: () => Promise<void>): void => {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      if (error instanceof UsageError) {
        console.error(error.message);
        process.exit(2);
      }
      if (error instanceof DatabaseLockedError || error instanceof EnvError) {
        console.error(`error: ${error.message}`);
        process.exit(1);
      }
      console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
};
