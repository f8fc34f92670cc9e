import net from "node:net";
import { localContext } from "@/lib/cli/command";
import { operatorCommands, type OperatorCommandName } from "@/lib/cli/commands";
import { CliFailure, EXIT, runCli, type ExitCode } from "@/lib/cli/open";
import { DatabaseLockedError, liveHolder, pgliteLockPath } from "@/lib/db/lock";
import { env } from "@/lib/env";
import { checkOperatorSocket, operatorSocketPath, parseFrame, PROTOCOL_VERSION, type OperatorRequest } from "./protocol";

const knownExitCode = (code: number): ExitCode | null => Object.values(EXIT).find((candidate) => candidate === code) ?? null;

/** The socket is not there to talk to (the server stopped, or has not started listening yet). */
const unreachable = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ECONNREFUSED" || code === "ENOENT";
};

class Unreachable extends Error {}

/** Sends the request and copies the answer to this process's stdout and stderr; resolves with its exit code. */
const exchange = (socketPath: string, request: OperatorRequest): Promise<ExitCode> =>
  new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    socket.setEncoding("utf8");
    let connected = false;
    let buffer = "";
    let exitCode: number | null = null;
    let failure: Error | null = null;
    socket.on("connect", () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
        const frame = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (frame === null) {
          failure = new CliFailure(EXIT.failed, "the server's answer on the operator socket was not understood (is the server of another version?)");
          socket.destroy();
          return;
        }
        if ("out" in frame) {
          // A slow reader of stdout (a pipe) holds the server's output back, not this process's memory.
          if (!process.stdout.write(frame.out) && !socket.isPaused()) {
            socket.pause();
            process.stdout.once("drain", () => socket.resume());
          }
        } else if ("err" in frame) process.stderr.write(frame.err);
        else exitCode = frame.exit;
      }
    });
    socket.on("error", (error) => {
      failure ??= connected
        ? new CliFailure(EXIT.failed, `the connection to the server broke before the command finished (${error.message}); see the server's log`)
        : unreachable(error)
          ? new Unreachable(error.message)
          : error;
    });
    socket.on("close", () => {
      const known = exitCode === null ? null : knownExitCode(exitCode);
      if (known !== null) resolve(known);
      else if (exitCode !== null) reject(new CliFailure(EXIT.failed, `the server answered with an unknown exit code ${exitCode}`));
      else reject(failure ?? new CliFailure(EXIT.failed, "the server closed the operator socket before the command finished; see the server's log"));
    });
  });

/**
 * The command's exit code when a live server holds the embedded database in DATA_DIR and ran the
 * command for this CLI; null when nothing holds it (the CLI opens it itself). Refuses, as before,
 * when the holder takes no commands (no socket: another CLI, or an older server), and when the
 * socket is not safe to talk to.
 */
const viaRunningServer = async (dataDir: string, request: OperatorRequest): Promise<ExitCode | null> => {
  const lockPath = pgliteLockPath(dataDir);
  const holder = liveHolder(lockPath);
  if (holder === null) return null;
  const socketPath = operatorSocketPath(dataDir);
  const check = checkOperatorSocket(dataDir);
  if (check.state === "absent") throw new DatabaseLockedError(lockPath, holder);
  if (check.state === "unsafe") {
    throw new CliFailure(
      EXIT.databaseLocked,
      `The embedded database at ${dataDir} is in use by process ${holder} (the server), and its operator socket ${socketPath} ` +
        `is refused: ${check.reason}. Restart the server to recreate it (nothing was sent to it).`,
    );
  }
  try {
    return await exchange(socketPath, request);
  } catch (error) {
    if (!(error instanceof Unreachable)) throw error;
    // The server stopped in between (the database is free now), or is still starting.
    const stillHeld = liveHolder(lockPath);
    if (stillHeld === null) return null;
    throw new DatabaseLockedError(lockPath, stillHeld);
  }
};

/**
 * Runs an operator CLI (scripts/keys.ts, workspaces.ts, import.ts, export.ts, db.ts): on the
 * database it opens itself, or — the embedded database being held by the running server — in
 * the server, over the operator socket (lib/cli/operator/protocol.ts). With DATABASE_URL
 * (PostgreSQL) it always connects itself.
 */
export const runOperatorCli = (name: OperatorCommandName): void =>
  runCli(async () => {
    const args = process.argv.slice(2);
    const config = env();
    if (config.DATABASE_URL === undefined) {
      const request: OperatorRequest = { v: PROTOCOL_VERSION, command: name, args, cwd: process.cwd(), tty: process.stderr.isTTY === true };
      const answered = await viaRunningServer(config.dataDir, request);
      if (answered !== null) return answered;
    }
    return operatorCommands[name](localContext(args));
  });
