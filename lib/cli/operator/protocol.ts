import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { OPERATOR_COMMANDS } from "@/lib/cli/commands";

/**
 * The operator socket: how an operator CLI (npm run keys, workspaces, import, export, db) reaches
 * the embedded database while the server holds it (docs/operations.md
 * "Operator commands while the server runs"). PGlite admits one process, so the CLI does not open
 * it: it sends its arguments to the server over a Unix domain socket in DATA_DIR, and the server runs the same
 * command (lib/cli/commands) and sends back what the CLI would have printed and its exit code.
 *
 * One request line, then answer lines, each one JSON object:
 *   → {"v":1,"command":"keys","args":["create","--name","x"],"cwd":"/home/op","tty":false}
 *   ← {"out":"text for stdout"} | {"err":"text for stderr"} … then {"exit":0}
 *
 * Who may send it is decided by the file system: the socket is mode 0600 in DATA_DIR, which is
 * 0700 (lib/db/data-dir.ts), so only the server's own user (and root) can connect. Node cannot
 * read the peer's credentials (SO_PEERCRED) of a Unix socket, so nothing further is checked.
 */
export const OPERATOR_SOCKET_NAME = "operator.sock";

export const PROTOCOL_VERSION = 1;

/** A request line is arguments, not data: files travel by path. */
export const MAX_REQUEST_BYTES = 64 * 1024;

/** A connection that has not sent its request line by then is closed. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** sun_path holds 108 bytes on Linux (104 on macOS) with its terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 103;

export const operatorSocketPath = (dataDir: string): string => path.join(path.resolve(dataDir), OPERATOR_SOCKET_NAME);

export const operatorRequest = z
  .object({
    v: z.literal(PROTOCOL_VERSION, { error: `v must be ${PROTOCOL_VERSION}` }),
    command: z.enum(OPERATOR_COMMANDS, { error: `command must be one of ${OPERATOR_COMMANDS.join(", ")}` }),
    args: z.array(z.string().max(8192)).max(512),
    cwd: z.string().refine((cwd) => path.isAbsolute(cwd), "cwd must be an absolute path"),
    tty: z.boolean(),
  })
  .strict();

export type OperatorRequest = z.infer<typeof operatorRequest>;

export type ParsedRequest = { ok: true; request: OperatorRequest } | { ok: false; problem: string };

/** A request line, or what is wrong with it (in words the operator can act on). */
export const parseRequest = (line: string): ParsedRequest => {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { ok: false, problem: "not a JSON object" };
  }
  const parsed = operatorRequest.safeParse(json);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return { ok: false, problem: `${where}${issue?.message ?? "invalid"}` };
};

export type Frame = { out: string } | { err: string } | { exit: number };

const frame = z.union([z.object({ out: z.string() }).strict(), z.object({ err: z.string() }).strict(), z.object({ exit: z.number().int() }).strict()]);

export const frameLine = (answer: Frame): string => `${JSON.stringify(answer)}\n`;

/** An answer line, or null when it is not one. */
export const parseFrame = (line: string): Frame | null => {
  try {
    const parsed = frame.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
};

export type SocketCheck = { state: "absent" } | { state: "unsafe"; reason: string } | { state: "usable" };

const ownUid = (): number | null => (typeof process.getuid === "function" ? process.getuid() : null);

const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(4, "0");

/**
 * Whether the CLI may send its command to the socket in DATA_DIR: it must be a socket of this
 * user, owner-only, in an owner-only DATA_DIR of this user. Anything looser could be another
 * user's listener (or let one in), so the CLI refuses it rather than hand it a command.
 */
export const checkOperatorSocket = (dataDir: string): SocketCheck => {
  const socketPath = operatorSocketPath(dataDir);
  let socket: fs.Stats;
  try {
    socket = fs.lstatSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "absent" };
    return { state: "unsafe", reason: `it cannot be examined (${(error as Error).message})` };
  }
  const uid = ownUid();
  const directory = fs.statSync(path.dirname(socketPath));
  if (!socket.isSocket()) return { state: "unsafe", reason: "it is not a socket" };
  if (uid !== null && socket.uid !== uid) return { state: "unsafe", reason: `it belongs to user ${socket.uid}, not to this user (${uid})` };
  if ((socket.mode & 0o077) !== 0) return { state: "unsafe", reason: `its mode ${octal(socket.mode)} lets other users connect (it must be 0600)` };
  if (uid !== null && directory.uid !== uid) return { state: "unsafe", reason: `DATA_DIR belongs to user ${directory.uid}, not to this user (${uid})` };
  if ((directory.mode & 0o077) !== 0) return { state: "unsafe", reason: `DATA_DIR's mode ${octal(directory.mode)} lets other users in (it must be 0700)` };
  return { state: "usable" };
};
