import path from "node:path";
import type { Writable } from "node:stream";
import type { Db } from "@/lib/database";
import { withCliDb, type ExitCode } from "./open";

/**
 * Where an operator command (keys, workspaces, import, export, db) runs: its arguments, the
 * folder relative paths are read against, where its answer goes and how it reaches the database.
 * The command itself is one function; run from a shell with no server holding the embedded
 * database it gets this process (`localContext`), and run in the server on behalf of a CLI
 * (lib/cli/operator) it gets the socket and the server's database. Same code, same output, same
 * audit entries.
 */
export type CommandContext = {
  args: readonly string[];
  /** The caller's working directory: file operands are resolved against it (`resolve`). */
  cwd: string;
  /** One line of the answer (console.log). */
  out(line: string): void;
  /** One line for the operator: errors, warnings, progress (console.error). */
  err(line: string): void;
  /** The answer as a stream, for output too large for lines held in memory (export). */
  stdout: Writable;
  /** Where a progress line goes; a terminal redraws it in place. */
  progress: { write(text: string): unknown; isTTY?: boolean };
  /** The database, for the duration of `work`. */
  withDb<T>(work: (db: Db) => Promise<T>): Promise<T>;
};

/** Returns its exit code (0 when it returns nothing); an expected failure throws (lib/cli/open.ts outcomeOf). */
export type OperatorCommand = (context: CommandContext) => Promise<ExitCode | void>;

/** A file operand as the caller meant it: relative to the caller's working directory. */
export const resolveIn = (context: CommandContext, file: string): string => path.resolve(context.cwd, file);

/** Lets `stream` take everything written so far (a command's last bytes before its exit code). */
export const flushed = (stream: Writable): Promise<void> => new Promise((resolve) => stream.write("", () => resolve()));

/** This process: its arguments, its directory, its stdout and stderr, the database opened here. */
export const localContext = (args: readonly string[]): CommandContext => ({
  args,
  cwd: process.cwd(),
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  stdout: process.stdout,
  progress: process.stderr,
  withDb: withCliDb,
});
