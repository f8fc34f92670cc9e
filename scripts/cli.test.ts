import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "@/lib/cli/open";
import { openDb } from "@/lib/database";
import { generateDemoData } from "@/lib/demo/generate";
import { listKeys } from "@/lib/keys/repository";
import { createUser, setUserStatus, type User } from "@/lib/users/repository";
import { runScript as run } from "@/tests/support/cli";
import { seedFromTemplate } from "@/tests/support/databases";

/**
 * The CLIs as a calling script sees them: spawned with tsx against a fresh embedded database
 * (a temporary DATA_DIR), judged by their exit codes.
 */
const directories: string[] = [];

const tempDir = (prefix: string): string => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  directories.push(directory);
  return directory;
};

const demo = generateDemoData("http://localhost:3000");
const goodLine = (index: number): string => {
  const event = demo.events[index];
  if (!event) throw new Error(`no demo event ${index}`);
  return JSON.stringify({ ...event, event_id: `${9_100_000_000 + index}` });
};

/** A Node.js older than the lowest line package.json admits: this machine's, or one fetched as npm test fetches further lines. */
const olderNode = (lowestMajor: number): string => {
  const onPath = (process.env.PATH ?? "").split(path.delimiter).map((directory) => path.join(directory, "node"));
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node", ...onPath]) {
    const probe = spawnSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" });
    if (probe.status === 0 && Number(probe.stdout.split(".")[0]) < lowestMajor) return candidate;
  }
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "sl-old-node-"));
  directories.push(prefix);
  const installed = spawnSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `node-linux-${process.arch}@${lowestMajor - 2}`]);
  if (installed.status !== 0) throw new Error(`no Node.js older than ${lowestMajor} here, and npm could not fetch one`);
  return path.join(prefix, "node_modules", `node-linux-${process.arch}`, "bin", "node");
};

/** A temporary DATA_DIR whose embedded database is already migrated (the unit project's template). */
const migratedDir = (prefix: string): string => {
  const directory = tempDir(prefix);
  seedFromTemplate(directory);
  return directory;
};

afterAll(() => {
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
});

describe("CLI exit codes", () => {
  it("import: 0 when every record is imported (the sample file in samples/ too)", async () => {
    const dataDir = migratedDir("sl-cli-ok-");
    const file = path.join(dataDir, "good.ndjson");
    fs.writeFileSync(file, `${goodLine(0)}\n${goodLine(1)}\n`);
    const result = await run(dataDir, "import.ts", [file]);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toMatch(/^2 records/);

    // The sample the docs start a user's own data from imports cleanly, even with --strict.
    const sample = await run(dataDir, "import.ts", ["--strict", path.resolve(__dirname, "..", "samples", "my-data.ndjson")]);
    expect(sample.stderr).toBe("");
    expect(sample.code).toBe(EXIT.ok);
    expect(sample.stdout).toMatch(/^3 records in .*: 3 written, 0 unchanged, 0 bad values skipped\n {2}events 1, follower lists 1 \(3 followers\), publication lists 1 \(2 publications\)$/m);
    const exported = await run(dataDir, "export.ts", ["--kind", "events", "--source", "import"]);
    expect(exported.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { event_id: string }).event_id).sort()).toEqual([
      "7000000000000001",
      "9100000000",
      "9100000001",
    ]);
  }, 120_000);

  it("import: 3 when bad records were skipped and the good ones written; 4 with --strict, nothing written", async () => {
    const dataDir = migratedDir("sl-cli-skip-");
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

  it("export → import of an unchanged store writes nothing and keeps each record's source", async () => {
    const dataDir = migratedDir("sl-cli-roundtrip-");
    expect((await run(dataDir, "db.ts", ["seed"])).code).toBe(EXIT.ok);
    const files = [];
    for (const kind of ["events", "followers", "publications"]) {
      const file = path.join(dataDir, `${kind}.ndjson`);
      const exported = await run(dataDir, "export.ts", ["--kind", kind, "--out", file]);
      expect(exported.code).toBe(EXIT.ok);
      files.push(file);
    }
    const imported = await run(dataDir, "import.ts", files);
    expect(imported.code).toBe(EXIT.ok);
    expect(imported.stdout).toMatch(/^46 records .*: 0 written, 46 unchanged, 0 bad values skipped/);
    const demoEvents = await run(dataDir, "export.ts", ["--kind", "events", "--source", "demo"]);
    expect(demoEvents.stdout).toBe(fs.readFileSync(files[0] ?? "", "utf8"));
    expect(demoEvents.stdout.trim().split("\n")).toHaveLength(40);
  }, 180_000);

  it("keys create --owner EMAIL: the key is that user's; keys list shows each key's owner", async () => {
    const dataDir = migratedDir("sl-cli-owner-");
    const db = await openDb({ dataDir, timeoutMs: 5000 });
    let analyst: User;
    try {
      analyst = await createUser(db, { email: "ana@example.com", name: "Ana", role: "analyst", passwordHash: null, creditAllowance: 0 });
      const disabled = await createUser(db, { email: "off@example.com", name: "Off", role: "analyst", passwordHash: null, creditAllowance: 0 });
      await setUserStatus(db, disabled.id, "disabled");
    } finally {
      await db.close();
    }
    const owned = await run(dataDir, "keys.ts", ["create", "--name", "nightly", "--credits", "50", "--owner", "Ana@Example.com", "--json"]);
    expect(owned.code).toBe(EXIT.ok);
    const created = JSON.parse(owned.stdout) as { id: string; owner: string };
    expect(created.owner).toBe("ana@example.com");
    expect((await run(dataDir, "keys.ts", ["create", "--name", "ownerless", "--credits", "5"])).code).toBe(EXIT.ok);
    // A key given to a user counts towards MAX_KEYS_PER_USER, as in the console.
    const overLimit = await run(dataDir, "keys.ts", ["create", "--name", "second", "--credits", "5", "--owner", "ana@example.com"], {
      MAX_KEYS_PER_USER: "1",
    });
    expect([overLimit.code, overLimit.stderr.split("\n")[0]]).toEqual([EXIT.usage, expect.stringMatching(/^error: You already have 1 active keys/)]);
    const unknown = await run(dataDir, "keys.ts", ["create", "--name", "x", "--credits", "5", "--owner", "nobody@example.com"]);
    expect([unknown.code, unknown.stderr.split("\n")[0]]).toEqual([EXIT.notFound, expect.stringMatching(/^error: no user with email nobody@example\.com/)]);
    const disabledOwner = await run(dataDir, "keys.ts", ["create", "--name", "x", "--credits", "5", "--owner", "off@example.com"]);
    expect([disabledOwner.code, disabledOwner.stderr.split("\n")[0]]).toEqual([EXIT.usage, expect.stringMatching(/^error: off@example\.com is disabled/)]);

    const listed = await run(dataDir, "keys.ts", ["list"]);
    const [header, ...rows] = listed.stdout.trim().split("\n").map((line) => line.split("\t"));
    expect(header?.slice(0, 3)).toEqual(["id", "name", "owner"]);
    expect(rows.map((row) => [row[1], row[2]]).sort()).toEqual([
      ["nightly", "ana@example.com"],
      ["ownerless", "-"],
    ]);

    // It is in the analyst's "My keys" (the console lists a user's own keys by owner).
    const reopened = await openDb({ dataDir, timeoutMs: 5000 });
    try {
      expect((await listKeys(reopened, analyst.id)).map((key) => key.id)).toEqual([created.id]);
    } finally {
      await reopened.close();
    }
  }, 180_000);

  it("workspaces: a team with its owner and members, its pool granted, and keys create --workspace drawing on it", async () => {
    const dataDir = migratedDir("sl-cli-teams-");
    const db = await openDb({ dataDir, timeoutMs: 5000 });
    try {
      for (const email of ["lead@example.com", "ana@example.com", "out@example.com"]) {
        await createUser(db, { email, name: email, role: "analyst", passwordHash: null, creditAllowance: 0 });
      }
    } finally {
      await db.close();
    }
    const created = await run(dataDir, "workspaces.ts", ["create", "--name", "Research", "--owner", "lead@example.com", "--json"]);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect((await run(dataDir, "workspaces.ts", ["add-member", id, "--email", "ana@example.com", "--role", "analyst"])).code).toBe(EXIT.ok);
    const granted = await run(dataDir, "workspaces.ts", ["credits", id, "250"]);
    expect([granted.code, granted.stdout.trim()]).toEqual([EXIT.ok, `Added 250 credits to the pool of ${id}: 250 remaining of 250 granted.`]);
    const key = await run(dataDir, "keys.ts", ["create", "--name", "pipeline", "--workspace", id, "--owner", "ana@example.com", "--cap", "40", "--cap-period", "month", "--json"]);
    expect(key.code, key.stderr).toBe(EXIT.ok);
    expect(JSON.parse(key.stdout)).toMatchObject({ name: "pipeline", credits: 250, owner: "ana@example.com", workspace: id, pool: id });
    // One after the other: the embedded database admits one process at a time.
    const refusals = [];
    for (const [script, args] of [
      ["keys.ts", ["create", "--name", "x", "--workspace", id, "--owner", "out@example.com"]],
      ["keys.ts", ["create", "--name", "x", "--workspace", id, "--credits", "5"]],
      ["keys.ts", ["create", "--name", "x", "--workspace", "wst_nope"]],
      ["workspaces.ts", ["add-member", id, "--email", "ana@example.com", "--role", "viewer"]],
    ] as const) {
      refusals.push(await run(dataDir, script, [...args]));
    }
    expect(refusals.map((result) => [result.code, result.stderr.split("\n")[0]])).toEqual([
      [EXIT.usage, expect.stringMatching(/^error: out@example\.com is not a member/)],
      [EXIT.usage, expect.stringMatching(/^error: a key of a team workspace draws from its pool/)],
      [EXIT.notFound, expect.stringMatching(/^error: no workspace with id wst_nope/)],
      [EXIT.usage, expect.stringMatching(/^error: ana@example\.com is already a member/)],
    ]);
    const listed = await run(dataDir, "workspaces.ts", ["list", "--json"]);
    const team = (JSON.parse(listed.stdout) as { id: string; personal: boolean; poolCredits: number; members: number }[]).find((entry) => entry.id === id);
    expect(team).toMatchObject({ personal: false, poolCredits: 250, members: 2 });
  }, 180_000);

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
