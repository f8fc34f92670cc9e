import { env } from "@/lib/env";
import { openDb, type Db } from "@/lib/database";
import { DatabaseLockedError } from "@/lib/db/lock";
import { UsageError } from "./options";

export { UsageError };

/**
 * Exit codes shared by every CLI (scripts/*.ts), so a calling script can tell "done", "done but
 * some input was bad" and "nothing happened" apart. Documented in docs (exit codes table).
 */
export const EXIT = {
  ok: 0,
  /** Configuration, database or unexpected failure. */
  failed: 1,
  /** Bad arguments or a missing file: nothing was done. */
  usage: 2,
  /** import: it finished, but bad records were skipped (the good ones were written). */
  skippedRecords: 3,
  /** import --strict: bad records were found, so nothing was written. */
  strictRejected: 4,
  /** The embedded database is held by a running server: stop it, or use the admin Upload page. */
  databaseLocked: 5,
  /** keys: no key with the given id; nothing changed. */
  notFound: 6,
} as const;

type ExitCode = (typeof EXIT)[keyof typeof EXIT];

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

/** An expected failure with its own exit code (its message is printed as one line). */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

/** The exit code and the one line (plus the usage, for a usage error) an expected failure prints. */
const fail = (error: unknown): never => {
  if (error instanceof UsageError) {
    console.error(`error: ${error.message}`);
    if (error.usage) console.error(error.usage);
    process.exit(EXIT.usage);
  }
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof CliFailure) process.exit(error.exitCode);
  if (error instanceof DatabaseLockedError) process.exit(EXIT.databaseLocked);
  process.exit(EXIT.failed);
};

/**
 * Runs a CLI main function: it may return an exit code (default 0); failures print one line and
 * exit with their code; no stack traces, also for an error a stream emits after main returned.
 */
export const runCli = (main: () => Promise<ExitCode | void>): void => {
  process.on("uncaughtException", fail);
  main().then((code) => process.exit(code ?? EXIT.ok), fail);
};
