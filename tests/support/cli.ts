import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { generateDemoData } from "@/lib/demo/generate";
import { seedFromTemplate } from "./databases";

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

/** Temporary DATA_DIRs of a test file's CLI runs, removed after its tests; `migrated` ones hold the run's migrated template. */
export const cliFolders = () => {
  const directories: string[] = [];
  afterAll(() => {
    for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
  });
  const temp = (prefix: string): string => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    directories.push(directory);
    return directory;
  };
  const migrated = (prefix: string): string => {
    const directory = temp(prefix);
    seedFromTemplate(directory);
    return directory;
  };
  return { temp, migrated };
};

const demo = generateDemoData("http://localhost:3000");

/** An NDJSON line of a good event record (a demo event under a new id, 9100000000 + index). */
export const goodEventLine = (index: number): string => {
  const event = demo.events[index];
  if (!event) throw new Error(`no demo event ${index}`);
  return JSON.stringify({ ...event, event_id: `${9_100_000_000 + index}` });
};
