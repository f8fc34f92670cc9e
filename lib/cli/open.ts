import { env } from "@/lib/env";
import { openDb, type Db } from "@/lib/database";
import { DatabaseLockedError } from "@/lib/db/lock";
import { HelpRequested, UsageError } from "./options";

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

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

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

/** What a command that threw prints (each entry a line) and its exit code. */
export type Outcome = { exitCode: ExitCode; stdout: string[]; stderr: string[] };

/**
 * The exit code and the one line (plus the usage, for a usage error) an expected failure prints;
 * `--help` is the usage on stdout. The same whether the command ran here or in the server
 * (lib/cli/operator), so an operator reads one answer either way.
 */
export const outcomeOf = (error: unknown): Outcome => {
  if (error instanceof HelpRequested) return { exitCode: EXIT.ok, stdout: [error.usage], stderr: [] };
  const line = `error: ${error instanceof Error ? error.message : String(error)}`;
  if (error instanceof UsageError) return { exitCode: EXIT.usage, stdout: [], stderr: error.usage ? [line, error.usage] : [line] };
  if (error instanceof CliFailure) return { exitCode: error.exitCode, stdout: [], stderr: [line] };
  if (error instanceof DatabaseLockedError) return { exitCode: EXIT.databaseLocked, stdout: [], stderr: [line] };
  return { exitCode: EXIT.failed, stdout: [], stderr: [line] };
};

const fail = (error: unknown): never => {
  const outcome = outcomeOf(error);
  for (const line of outcome.stdout) console.log(line);
  for (const line of outcome.stderr) console.error(line);
  process.exit(outcome.exitCode);
};

/**
 * Runs a CLI main function: it may return an exit code (default 0); failures print one line and
 * exit with their code; no stack traces, also for an error a stream emits after main returned.
 */
export const runCli = (main: () => Promise<ExitCode | void>): void => {
  process.on("uncaughtException", fail);
  main().then((code) => process.exit(code ?? EXIT.ok), fail);
};
