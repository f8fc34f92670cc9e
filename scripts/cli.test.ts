import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "@/lib/cli/open";
import { openDb } from "@/lib/database";
import { cliFolders, goodEventLine as goodLine, runScript as run } from "@/tests/support/cli";

/**
 * The CLIs as a calling script sees them: spawned with tsx against a fresh embedded database
 * (a temporary DATA_DIR), judged by their exit codes. Usage, help, keys and the database, the Node.js line, the lock (scripts/cli-data.test.ts: import and export; scripts/cli-accounts.test.ts: owners and teams).
 */
const { temp: tempDir } = cliFolders();

/** A Node.js older than the lowest line package.json admits: this machine's, or one fetched as npm test fetches further lines. */
const olderNode = (lowestMajor: number): string => {
  const onPath = (process.env.PATH ?? "").split(path.delimiter).map((directory) => path.join(directory, "node"));
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node", ...onPath]) {
    const probe = spawnSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" });
    if (probe.status === 0 && Number(probe.stdout.split(".")[0]) < lowestMajor) return candidate;
  }
  const prefix = tempDir("sl-old-node-");
  const installed = spawnSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `node-linux-${process.arch}@${lowestMajor - 2}`]);
  if (installed.status !== 0) throw new Error(`no Node.js older than ${lowestMajor} here, and npm could not fetch one`);
  return path.join(prefix, "node_modules", `node-linux-${process.arch}`, "bin", "node");
};

describe("CLI exit codes", () => {
  it("usage errors answer 2, say what is wrong on their first line, and touch nothing", async () => {
    const dataDir = tempDir("sl-cli-usage-");
    const cases: [script: string, args: string[], firstLine: RegExp][] = [
      ["import.ts", [], /^error: no FILE given$/],
      ["import.ts", [path.join(dataDir, "missing.ndjson")], /^error: no such file: /],
      ["import.ts", ["--bogus", "x.ndjson"], /^error: unknown option --bogus$/],
      ["export.ts", ["--kind", "nothing"], /^error: --kind must be one of events, followers, publications, not "nothing"$/],
      ["export.ts", ["--kind", "events", "--bogus"], /^error: unknown option --bogus$/],
      ["export.ts", ["--kind", "events", "--out", path.join(dataDir, "missing-dir", "x.ndjson")], /^error: cannot write --out .*x\.ndjson: its directory does not exist$/],
      ["keys.ts", ["create", "--credits", "10"], /^error: --name is required/],
      ["keys.ts", ["create", "--name", "no credits"], /^error: --credits is required$/],
      ["keys.ts", ["create", "--name", "bad credits", "--credits", "ten"], /^error: --credits must be a whole number/],
      ["keys.ts", ["--help", "--bogus"], /^error: unknown option --bogus$/],
      ["keys.ts", ["revoke"], /^error: keys revoke needs a key id/],
      ["keys.ts", ["topup", "key_x"], /^error: keys topup needs a number of credits$/],
      ["keys.ts", [], /^error: a command is required: create, list, revoke, topup$/],
      ["keys.ts", ["dance"], /^error: unknown command "dance"/],
      ["db.ts", ["dance"], /^error: unknown command "dance"/],
      ["db.ts", ["migrate", "--bogus"], /^error: unknown option --bogus$/],
    ];
    const results = await Promise.all(cases.map(([script, args]) => run(dataDir, script, args)));
    results.forEach((result, index) => {
      const [script, args, firstLine] = cases[index] ?? ["", [], /$^/];
      expect({ command: [script, ...args].join(" "), code: result.code, firstLine: result.stderr.split("\n")[0] }).toEqual({
        command: [script, ...args].join(" "),
        code: EXIT.usage,
        firstLine: expect.stringMatching(firstLine),
      });
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
    // The --out failure is one line: no usage text, no stack.
    expect(results[5]?.stderr.trim().split("\n")).toHaveLength(1);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 120_000);

  it("--help prints the usage and exits 0", async () => {
    const dataDir = tempDir("sl-cli-help-");
    const results = await Promise.all(["keys.ts", "export.ts", "import.ts", "db.ts"].map((script) => run(dataDir, script, ["--help"])));
    expect(results.map((result) => [result.code, result.stdout.split("\n")[0]])).toEqual([
      [EXIT.ok, expect.stringMatching(/^usage: npm run --silent keys/)],
      [EXIT.ok, expect.stringMatching(/^usage: npm run --silent export/)],
      [EXIT.ok, expect.stringMatching(/^usage: npm run import/)],
      [EXIT.ok, expect.stringMatching(/^usage: npm run db:migrate/)],
    ]);
    expect(results[0]?.stdout).toMatch(/--owner EMAIL/);
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

  it("npm start on a Node.js older than the lowest line runs itself again on that line from the cache npm test fills", () => {
    const root = path.resolve(__dirname, "..");
    const engines = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    const lowestMajor = Number(/\d+/.exec(engines)?.[0]);
    const node = olderNode(lowestMajor);
    const dataDir = path.join(tempDir("sl-cli-old-node-"), "data");
    // The script npm start runs, with this machine's old node (tsx itself runs on it), and the
    // cache npm test keeps Node.js 22 in (fetched now if it is not there yet).
    const cache = Object.fromEntries(
      (["NODE_CACHE_DIR", "XDG_CACHE_HOME"] as const).flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
    );
    const started = spawnSync(node, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/start.ts", "--check-node"], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "test", DATA_DIR: dataDir, ...cache },
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(started.stderr).toBe("");
    const [notice, ranOn, ...rest] = started.stdout.trim().split("\n");
    expect(notice).toMatch(new RegExp(`^Node\\.js \\d+\\.\\d+\\.\\d+ is older than Node\\.js ${lowestMajor}, the lowest line Social Lookup runs on: (running on|fetching)`));
    expect(ranOn).toMatch(new RegExp(`^Running on Node\\.js ${lowestMajor}\\.\\d+\\.\\d+ \\(.*/${lowestMajor}/node_modules/node-linux-\\w+/bin/node\\)\\.$`));
    expect(rest).toEqual([]);
    expect(started.status).toBe(EXIT.ok);
    // The check alone touches nothing.
    expect(fs.existsSync(dataDir)).toBe(false);
  }, 320_000);

  it("5 while the embedded database is held by another process (the server), leaving its folder as it was", async () => {
    const dataDir = tempDir("sl-cli-locked-");
    const db = await openDb({ dataDir, timeoutMs: 5000 });
    try {
      const file = path.join(dataDir, "good.ndjson");
      fs.writeFileSync(file, `${goodLine(4)}\n`);
      // A mode of the running server's folder that a refused command would have tightened first.
      fs.chmodSync(dataDir, 0o750);
      const results = await Promise.all([
        run(dataDir, "import.ts", [file]),
        run(dataDir, "keys.ts", ["list"]),
        run(dataDir, "start.ts", [], { AUTH_SECRET: "s".repeat(40) }),
      ]);
      expect(results.map((result) => result.code)).toEqual([EXIT.databaseLocked, EXIT.databaseLocked, EXIT.databaseLocked]);
      for (const result of results) expect(result.stderr).toMatch(/^error: The embedded database at .* is in use by process \d+/);
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o750);
    } finally {
      await db.close();
    }
  }, 120_000);
});
