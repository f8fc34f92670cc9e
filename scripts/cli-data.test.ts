import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "@/lib/cli/open";
import { cliFolders, goodEventLine as goodLine, runScript as run } from "@/tests/support/cli";

/**
 * The CLIs as a calling script sees them: spawned with tsx against a fresh embedded database
 * (a temporary DATA_DIR), judged by their exit codes. Import and export (scripts/cli.test.ts: usage, keys, the database; scripts/cli-accounts.test.ts: owners and teams).
 */
const { migrated: migratedDir } = cliFolders();

describe("CLI exit codes: import and export", () => {
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

});
