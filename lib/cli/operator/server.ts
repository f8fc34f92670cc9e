import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { CommandContext } from "@/lib/cli/command";
import { operatorCommands } from "@/lib/cli/commands";
import { EXIT, outcomeOf, type ExitCode } from "@/lib/cli/open";
import type { Db } from "@/lib/database";
import { log } from "@/lib/log";
import {
  frameLine,
  MAX_REQUEST_BYTES,
  MAX_SOCKET_PATH_BYTES,
  operatorSocketPath,
  parseRequest,
  REQUEST_TIMEOUT_MS,
  type Frame,
  type OperatorRequest,
} from "./protocol";

/**
 * The server's end of the operator socket (lib/cli/operator/protocol.ts): it listens in DATA_DIR
 * while this process holds the embedded database, runs each CLI's command with this process's
 * database, and answers with the command's output and exit code.
 */
export type OperatorSocket = {
  path: string;
  /** No new connections; resolves once the commands in progress have answered. */
  close(): Promise<void>;
};

export type OperatorSocketOptions = {
  dataDir: string;
  /** The process's own database (the one it holds the lock of). */
  withDb: <T>(work: (db: Db) => Promise<T>) => Promise<T>;
};

/** At most this many CLIs at once: Node closes a connection beyond it at once (its CLI exits 1). */
const MAX_CONNECTIONS = 8;

const removeStale = (socketPath: string): void => {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (stat.isDirectory()) throw new Error(`${socketPath} is a directory; remove it to let operator commands reach the server`);
  // Left by a server that did not stop cleanly (this process holds the lock, so no live server owns it),
  // or something else in its place: whatever it is, it is replaced by this process's socket.
  fs.unlinkSync(socketPath);
};

const listen = (server: net.Server, socketPath: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });

/** The context a command runs in on behalf of the CLI at the other end of `socket`. */
const socketContext = (socket: net.Socket, request: OperatorRequest, withDb: OperatorSocketOptions["withDb"]) => {
  const send = (frame: Frame): boolean => (socket.destroyed ? true : socket.write(frameLine(frame)));
  const gone = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const decoder = new StringDecoder("utf8");
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      if (socket.destroyed) {
        // Nobody reads the answer any more: an export stops rather than run on for nothing.
        callback(new Error("the operator CLI went away before the command finished"));
        return;
      }
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      if (text === "" || send({ out: text })) {
        callback();
        return;
      }
      Promise.race([once(socket, "drain"), gone]).then(() => callback(), callback);
    },
  });
  stdout.on("error", () => undefined);
  const context: CommandContext = {
    args: request.args,
    cwd: request.cwd,
    out: (line) => send({ out: `${line}\n` }),
    err: (line) => send({ err: `${line}\n` }),
    stdout,
    progress: { write: (text: string) => send({ err: text }), isTTY: request.tty },
    withDb,
  };
  return { context, send };
};

const runRequest = async (socket: net.Socket, request: OperatorRequest, withDb: OperatorSocketOptions["withDb"]): Promise<void> => {
  const { context, send } = socketContext(socket, request, withDb);
  const startedAt = Date.now();
  let exitCode: ExitCode;
  try {
    exitCode = (await operatorCommands[request.command](context)) ?? EXIT.ok;
  } catch (error) {
    const outcome = outcomeOf(error);
    for (const line of outcome.stdout) send({ out: `${line}\n` });
    for (const line of outcome.stderr) send({ err: `${line}\n` });
    exitCode = outcome.exitCode;
    if (exitCode === EXIT.failed) log.warn(`operator command ${request.command} failed`, { command: request.command, err: error });
  }
  send({ exit: exitCode });
  socket.end();
  // The command and its exit code; its arguments and output may hold a token or a path: not logged.
  log.info(`operator command ${request.command} (from the local socket): exit ${exitCode}`, {
    command: request.command,
    exitCode,
    durationMs: Date.now() - startedAt,
  });
};

/** Reads the request line, then runs it; a malformed or late request is answered with an error and exit code 2. */
const serve = (socket: net.Socket, withDb: OperatorSocketOptions["withDb"], running: Set<Promise<void>>): void => {
  socket.setEncoding("utf8");
  socket.setTimeout(REQUEST_TIMEOUT_MS);
  socket.on("error", () => undefined);
  let buffer = "";
  let answered = false;
  const refuse = (problem: string) => {
    if (answered) return;
    answered = true;
    log.warn(`operator socket: refused a request (${problem})`, { problem });
    socket.write(frameLine({ err: `error: malformed operator request: ${problem}\n` }));
    socket.end(frameLine({ exit: EXIT.usage }));
  };
  socket.on("timeout", () => {
    refuse(`no request line within ${REQUEST_TIMEOUT_MS / 1000} s`);
    socket.destroySoon();
  });
  socket.on("data", (chunk: string) => {
    if (answered) return;
    buffer += chunk;
    const end = buffer.indexOf("\n");
    if (end === -1) {
      if (Buffer.byteLength(buffer) > MAX_REQUEST_BYTES) refuse(`the request line is longer than ${MAX_REQUEST_BYTES} bytes`);
      return;
    }
    const parsed = parseRequest(buffer.slice(0, end));
    buffer = "";
    if (!parsed.ok) {
      refuse(parsed.problem);
      return;
    }
    answered = true;
    socket.setTimeout(0);
    const run = runRequest(socket, parsed.request, withDb).catch((error: unknown) => {
      log.error("operator socket: a command's answer failed", { err: error });
      socket.destroy();
    });
    running.add(run);
    void run.finally(() => running.delete(run));
  });
};

/**
 * Listens on DATA_DIR/operator.sock (mode 0600), replacing a stale one. Call it once this process
 * holds the embedded database. Null, with a warning, when the path is too long for a Unix socket.
 */
export const startOperatorSocket = async (options: OperatorSocketOptions): Promise<OperatorSocket | null> => {
  const socketPath = operatorSocketPath(options.dataDir);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    log.warn(`Operator commands cannot reach this server: ${socketPath} is too long for a Unix socket; they wait for it to stop`, { socketPath });
    return null;
  }
  // The lock first: only the process that holds the database may own its socket.
  await options.withDb(async () => undefined);
  removeStale(socketPath);
  const running = new Set<Promise<void>>();
  const server = net.createServer({ allowHalfOpen: true }, (socket) => serve(socket, options.withDb, running));
  server.maxConnections = MAX_CONNECTIONS;
  await listen(server, socketPath);
  // DATA_DIR is 0700 already; the socket is owner-only as well, whatever the umask made it.
  fs.chmodSync(socketPath, 0o600);
  const unlink = () => fs.rmSync(socketPath, { force: true });
  process.on("exit", unlink);
  let closing: Promise<void> | null = null;
  return {
    path: socketPath,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        unlink();
        process.off("exit", unlink);
        await Promise.all([closed, ...running]);
      })();
      return closing;
    },
  };
};
