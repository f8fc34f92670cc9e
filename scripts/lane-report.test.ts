import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatFailures, formatLaneSummary, laneLine, laneTotals, parseStageRecords, playwrightCounts, readStageRows, stageRow, vitestCounts } from "./lane-report";

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
});

/** A lane directory as scripts/lane.sh leaves it: stages.tsv and the stages' JSON reports. */
const laneDir = (stages: string[], reports: Record<string, unknown>): string => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "sl-lane-"));
  directories.push(directory);
  fs.writeFileSync(path.join(directory, "stages.tsv"), stages.map((line) => line.replaceAll("{dir}", directory)).join("\n") + "\n");
  for (const [file, report] of Object.entries(reports)) fs.writeFileSync(path.join(directory, file), JSON.stringify(report));
  return directory;
};

const vitestReport = (files: Record<string, string[]>) => ({
  numTotalTests: Object.values(files).flat().length,
  testResults: Object.entries(files).map(([name, statuses]) => ({ name, status: "passed", assertionResults: statuses.map((status) => ({ status })) })),
});

const playwrightReport = {
  suites: [
    { file: "home.spec.ts", specs: [{ tests: [{ status: "expected" }, { status: "expected" }] }], suites: [] },
    {
      file: "keys.spec.ts",
      specs: [{ tests: [{ status: "unexpected" }] }],
      suites: [{ file: "keys.spec.ts", specs: [{ tests: [{ status: "skipped" }, { status: "flaky" }] }] }],
    },
  ],
  stats: { expected: 2, unexpected: 1, flaky: 1, skipped: 1 },
};

describe("a lane's summary", () => {
  it("counts a vitest report's files and its tests: passed, failed, and skipped, pending or todo as skipped", () => {
    expect(vitestCounts(vitestReport({ "a.test.ts": ["passed", "passed", "failed"], "b.test.ts": ["skipped", "pending", "todo"] }))).toEqual({
      files: 2,
      passed: 2,
      failed: 1,
      skipped: 3,
    });
  });

  it("counts a Playwright report's spec files and tests at every depth: expected or flaky passed, unexpected failed", () => {
    expect(playwrightCounts(playwrightReport)).toEqual({ files: 2, passed: 3, failed: 1, skipped: 1 });
  });

  it("reads the stage records, a skipped stage with its reason", () => {
    expect(parseStageRecords("unit\tunit tests\tvitest\t0\t12\t/x/unit.json\t\napi\tAPI tests\tvitest\t\t0\t\tPostgreSQL is not reachable\n")).toEqual([
      { id: "unit", title: "unit tests", kind: "vitest", exitCode: 0, seconds: 12, reportFile: "/x/unit.json", skipReason: "" },
      { id: "api", title: "API tests", kind: "vitest", exitCode: null, seconds: 0, reportFile: "", skipReason: "PostgreSQL is not reachable" },
    ]);
    expect(() => parseStageRecords("x\tx\tjest\t0\t1\t\t\n")).toThrow('unknown kind "jest"');
  });

  it("fails a stage that exited non-zero with every test passed (a teardown's finding), and counts it as one failed", () => {
    const record = { id: "api", title: "API tests", kind: "vitest" as const, exitCode: 1, seconds: 30, reportFile: "", skipReason: "" };
    const row = stageRow(record, { files: 3, passed: 40, failed: 0, skipped: 0 });
    expect(row.outcome).toBe("failed");
    expect(row.note).toMatch(/outside its tests/);
    expect(laneTotals([row])).toEqual({ passed: 40, failed: 1, skipped: 0 });
    const noReport = stageRow({ ...record, reportFile: "/nowhere.json" }, null);
    expect(noReport.note).toBe("exit 1, no report written (see its output above)");
  });

  it("prints one row per stage and, as its very last line, N passed, N failed (N skipped only when there are any)", () => {
    const directory = laneDir(
      [
        "typecheck\ttype check (tsc)\tcheck\t0\t40\t\t",
        "unit\tunit tests (PGlite)\tvitest\t0\t95\t{dir}/unit.json\t",
        "api\tAPI tests (production server, PGlite)\tvitest\t1\t300\t{dir}/api.json\t",
        "e2e\tbrowser tests (Playwright, Chromium)\tplaywright\t1\t200\t{dir}/e2e.json\t",
        "scale\tscale tests\tvitest\t\t0\t\tPostgreSQL at 127.0.0.1:5432 is not reachable",
      ],
      {
        "unit.json": vitestReport({ "a.test.ts": ["passed", "passed"], "b.test.ts": ["passed", "skipped"] }),
        "api.json": vitestReport({ "c.test.ts": ["passed", "failed"] }),
        "e2e.json": playwrightReport,
      },
    );
    const rows = readStageRows(directory);
    expect(rows.map((row) => row.outcome)).toEqual(["passed", "passed", "failed", "failed", "skipped"]);
    const text = formatLaneSummary("npm test", rows);
    const lines = text.split("\n");
    expect(lines[0]).toBe("== npm test: summary (635 s in stages)");
    expect(lines[1]).toMatch(/^stage +result +files +passed +failed +skipped +seconds +note$/);
    expect(lines.find((line) => line.startsWith("type check"))).toMatch(/passed +- +- +- +- +40$/);
    expect(lines.find((line) => line.startsWith("unit tests"))).toMatch(/passed +2 +3 +0 +1 +95$/);
    expect(lines.find((line) => line.startsWith("API tests"))).toMatch(/FAILED +1 +1 +1 +0 +300$/);
    expect(lines.find((line) => line.startsWith("scale tests"))).toMatch(/skipped +- +- +- +- +- +PostgreSQL at 127\.0\.0\.1:5432 is not reachable$/);
    expect(lines.at(-1)).toBe("7 passed, 2 failed, 2 skipped");
    expect(laneLine({ passed: 5, failed: 0, skipped: 0 })).toBe("5 passed, 0 failed");
  });

  it("names each failed test with its file and the first line of its message, and a file that failed outside its tests", () => {
    const directory = laneDir(
      ["unit\tunit tests (PGlite)\tvitest\t1\t95\t{dir}/unit.json\t", "e2e\tbrowser tests\tplaywright\t1\t200\t{dir}/e2e.json\t"],
      {
        "unit.json": {
          testResults: [
            {
              name: path.join(process.cwd(), "lib/a.test.ts"),
              status: "failed",
              assertionResults: [
                { status: "passed", fullName: "a works" },
                { status: "failed", fullName: "a › counts", failureMessages: ["\u001b[31mAssertionError: expected 8 to be 7\u001b[39m\n    at x"] },
              ],
            },
            { name: "lib/b.test.ts", status: "failed", message: "Hook timed out in 120000ms", assertionResults: [] },
          ],
        },
        "e2e.json": {
          suites: [
            {
              file: "keys.spec.ts",
              title: "keys.spec.ts",
              suites: [{ title: "the keys page", specs: [{ title: "revokes", file: "keys.spec.ts", line: 12, tests: [{ status: "unexpected", results: [{ error: { message: "Timed out 5000ms" } }] }] }] }],
            },
          ],
        },
      },
    );
    expect(formatFailures(directory).split("\n")).toEqual([
      "== unit tests (PGlite): 2 failed",
      "  ✗ lib/a.test.ts › a › counts",
      "      AssertionError: expected 8 to be 7",
      "  ✗ lib/b.test.ts › (the file, outside its tests)",
      "      Hook timed out in 120000ms",
      "== browser tests: 1 failed",
      "  ✗ keys.spec.ts:12 › the keys page › revokes",
      "      Timed out 5000ms",
    ]);
    expect(formatFailures(laneDir(["unit\tunit\tvitest\t0\t1\t{dir}/u.json\t"], { "u.json": vitestReport({ "a.test.ts": ["passed"] }) }))).toBe("");
  });
});
