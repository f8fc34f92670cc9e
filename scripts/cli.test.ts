import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "@/lib/cli/open";
import { openDb } from "@/lib/db/client";
import { generateDemoData } from "@/lib/demo/generate";

/**
 * The CLIs as a calling script sees them: spawned with tsx against a fresh embedded database
 * (a temporary DATA_DIR), judged by their exit codes.
 */
const ROOT = path.resolve(__dirname, "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const directories: string[] = [];

const tempDir = (prefix: string): string => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  directories.push(directory);
  return directory;
};

type Run = { code: number | null; stdout: string; stderr: string };

const run = (dataDir: string, script: string, args: readonly string[]): Promise<Run> =>
  new Promise((resolve, reject) => {
    // The embedded database only: no DATABASE_URL or REDIS_URL from the caller's environment.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "test", DATA_DIR: dataDir };
    const child = spawn(process.execPath, [TSX_CLI, `scripts/${script}`, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (piece: Buffer) => (stdout += piece.toString("utf8")));
    child.stderr.on("data", (piece: Buffer) => (stderr += piece.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });

const demo = generateDemoData("http://localhost:3000");
const goodLine = (index: number): string => {
  const event = demo.events[index];
  if (!event) throw new Error(`no demo event ${index}`);
  return JSON.stringify({ ...event, event_id: `${9_100_000_000 + index}` });
};

afterAll(() => {
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
});

describe("CLI exit codes", () => {
  it("import: 0 when every record is imported", async () => {
    const dataDir = tempDir("sl-cli-ok-");
    const file = path.join(dataDir, "good.ndjson");
    fs.writeFileSync(file, `${goodLine(0)}\n${goodLine(1)}\n`);
    const result = await run(dataDir, "import.ts", [file]);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toMatch(/^2 records/);
  }, 120_000);

  it("import: 3 when bad records were skipped and the good ones written; 4 with --strict, nothing written", async () => {
    const dataDir = tempDir("sl-cli-skip-");
    const file = path.join(dataDir, "mixed.ndjson");
    fs.writeFileSync(file, `${goodLine(2)}\n{"event_id": 5}\nnot json\n${goodLine(3)}\n`);

    const strict = await run(dataDir, "import.ts", ["--strict", file]);
    expect(strict.code).toBe(EXIT.strictRejected);
    expect(strict.stderr).toMatch(/mixed\.ndjson:2: /);
    expect(strict.stderr).toMatch(/nothing was written/);

    const lenient = await run(dataDir, "import.ts", [file]);
    expect(lenient.code).toBe(EXIT.skippedRecords);
    expect(lenient.stderr).toMatch(/mixed\.ndjson:3: invalid JSON/);
    expect(lenient.stdout).toMatch(/^2 records .* 2 written, 0 unchanged, 2 bad values skipped/);

    // The two good records are in the store: exporting them yields them.
    const exported = await run(dataDir, "export.ts", ["--kind", "events"]);
    expect(exported.code).toBe(EXIT.ok);
    expect(exported.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { event_id: string }).event_id).sort()).toEqual(["9100000002", "9100000003"]);
  }, 120_000);

  it("usage errors answer 2 and touch nothing", async () => {
    const dataDir = tempDir("sl-cli-usage-");
    const results = await Promise.all([
      run(dataDir, "import.ts", []),
      run(dataDir, "import.ts", [path.join(dataDir, "missing.ndjson")]),
      run(dataDir, "export.ts", ["--kind", "nothing"]),
      run(dataDir, "keys.ts", ["create", "--credits", "10"]),
      run(dataDir, "db.ts", ["dance"]),
    ]);
    expect(results.map((result) => result.code)).toEqual(Array.from({ length: results.length }, () => EXIT.usage));
    expect(results.every((result) => !/\n\s+at /.test(result.stderr))).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 120_000);

  it("keys: 0 for create, 6 for an unknown id; db: 0 for migrate and seed", async () => {
    const dataDir = tempDir("sl-cli-keys-");
    const migrate = await run(dataDir, "db.ts", ["migrate"]);
    expect(migrate.code).toBe(EXIT.ok);
    const created = await run(dataDir, "keys.ts", ["create", "--name", "cli", "--credits", "5", "--json"]);
    expect(created.code).toBe(EXIT.ok);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: "cli", credits: 5 });
    const unknown = await run(dataDir, "keys.ts", ["revoke", "key_does_not_exist"]);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toMatch(/no key with id key_does_not_exist/);
    const topUp = await run(dataDir, "keys.ts", ["topup", "key_does_not_exist", "5"]);
    expect(topUp.code).toBe(EXIT.notFound);
    const seed = await run(dataDir, "db.ts", ["seed"]);
    expect(seed.code).toBe(EXIT.ok);
  }, 180_000);

  it("5 while the embedded database is held by another process (the server)", async () => {
    const dataDir = tempDir("sl-cli-locked-");
    const db = await openDb({ dataDir, timeoutMs: 5000 });
    try {
      const file = path.join(dataDir, "good.ndjson");
      fs.writeFileSync(file, `${goodLine(4)}\n`);
      const results = await Promise.all([run(dataDir, "import.ts", [file]), run(dataDir, "keys.ts", ["list"])]);
      expect(results.map((result) => result.code)).toEqual([EXIT.databaseLocked, EXIT.databaseLocked]);
      expect(results[0]?.stderr).toMatch(/in use by process/);
    } finally {
      await db.close();
    }
  }, 120_000);
});
