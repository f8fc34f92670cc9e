import { spawn } from "node:child_process";
import path from "node:path";

/** The project's root, where `scripts/` and `node_modules/` are. */
const ROOT = path.resolve(__dirname, "..", "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

export type CliRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/**
 * Runs `scripts/<script>` as a calling script would: through tsx, on the Node running the tests,
 * against the embedded database in `dataDir`. No DATABASE_URL or REDIS_URL comes from the
 * caller's environment; `extraEnv` adds variables (NODE_OPTIONS reaches every Node process the
 * script runs in, tsx's own child included).
 */
export const runScript = (dataDir: string, script: string, args: readonly string[], extraEnv: Record<string, string> = {}): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "test", DATA_DIR: dataDir, ...extraEnv };
    const child = spawn(process.execPath, [TSX_CLI, `scripts/${script}`, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (piece: Buffer) => (stdout += piece.toString("utf8")));
    child.stderr.on("data", (piece: Buffer) => (stderr += piece.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
