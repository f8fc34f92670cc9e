import fs from "node:fs";
import path from "node:path";

/**
 * The summary of a test lane (scripts/test.sh, scripts/test-proofs.sh): one row per stage, read
 * from the stage records the lane's shell writes (stages.tsv) and from the JSON reports of vitest
 * and Playwright, and the lane's last line, `N passed, N failed[, N skipped]`, which CI reads.
 */

/** How a stage reports: a vitest or Playwright JSON file, or only its exit code (a check, the build). */
export type StageKind = "vitest" | "playwright" | "check";

/** One line of stages.tsv: id, title, kind, exit code ("" when skipped), seconds, report file, skip reason. */
export type StageRecord = {
  id: string;
  title: string;
  kind: StageKind;
  exitCode: number | null;
  seconds: number;
  reportFile: string;
  skipReason: string;
};

export type TestCounts = { files: number; passed: number; failed: number; skipped: number };

export type StageRow = StageRecord & {
  /** null for a check, or for a suite that wrote no report (it crashed before the end). */
  counts: TestCounts | null;
  outcome: "passed" | "failed" | "skipped";
  note: string;
};

const STAGE_KINDS: readonly StageKind[] = ["vitest", "playwright", "check"];
const isStageKind = (value: string): value is StageKind => (STAGE_KINDS as readonly string[]).includes(value);

export const parseStageRecords = (tsv: string): StageRecord[] =>
  tsv
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      const [id = "", title = "", kind = "", exitCode = "", seconds = "0", reportFile = "", skipReason = ""] = line.split("\t");
      if (!isStageKind(kind)) throw new Error(`stages.tsv line ${index + 1}: unknown kind "${kind}"`);
      return { id, title, kind, exitCode: exitCode === "" ? null : Number(exitCode), seconds: Number(seconds), reportFile, skipReason };
    });

type VitestReport = {
  testResults?: { name?: string; status?: string; message?: string; assertionResults?: { status?: string; fullName?: string; failureMessages?: string[] }[] }[];
};

/** Counts of a vitest JSON report (`--reporter=json`): a test is passed, failed, or skipped (skipped, pending, todo). */
export const vitestCounts = (report: VitestReport): TestCounts => {
  const files = report.testResults ?? [];
  const statuses = files.flatMap((file) => (file.assertionResults ?? []).map((result) => result.status ?? ""));
  return {
    files: files.length,
    passed: statuses.filter((status) => status === "passed").length,
    failed: statuses.filter((status) => status === "failed").length,
    skipped: statuses.filter((status) => status === "skipped" || status === "pending" || status === "todo" || status === "disabled").length,
  };
};

type PlaywrightSuite = {
  file?: string;
  title?: string;
  suites?: PlaywrightSuite[];
  specs?: { title?: string; file?: string; line?: number; tests?: { status?: string; results?: { error?: { message?: string } }[] }[] }[];
};
type PlaywrightReport = { suites?: PlaywrightSuite[] };

/** Counts of a Playwright JSON report: per test and project, expected or flaky is passed, unexpected failed, skipped skipped. */
export const playwrightCounts = (report: PlaywrightReport): TestCounts => {
  const statuses: string[] = [];
  const files = new Set<string>();
  const visit = (suite: PlaywrightSuite) => {
    if (suite.file !== undefined) files.add(suite.file);
    for (const spec of suite.specs ?? []) for (const test of spec.tests ?? []) statuses.push(test.status ?? "");
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
  return {
    files: files.size,
    passed: statuses.filter((status) => status === "expected" || status === "flaky").length,
    failed: statuses.filter((status) => status === "unexpected").length,
    skipped: statuses.filter((status) => status === "skipped").length,
  };
};

const readCounts = (record: StageRecord): TestCounts | null => {
  if (record.kind === "check" || record.reportFile === "" || !fs.existsSync(record.reportFile)) return null;
  const report: unknown = JSON.parse(fs.readFileSync(record.reportFile, "utf8"));
  if (typeof report !== "object" || report === null) return null;
  return record.kind === "vitest" ? vitestCounts(report) : playwrightCounts(report);
};

/** A failed test: where it is, its name, and the first line of what it said. */
export type FailedTest = { file: string; name: string; message: string };

const firstLine = (text: string | undefined): string =>
  // eslint-disable-next-line no-control-regex -- the reporters' messages carry terminal colours
  (text ?? "").replace(/\u001b\[[0-9;]*m/g, "").split("\n").map((line) => line.trim()).find((line) => line !== "") ?? "";

const relative = (file: string): string => (path.isAbsolute(file) ? path.relative(process.cwd(), file) : file);

/** The failed tests of a vitest JSON report, and files that failed outside their tests (a hook, an import). */
export const vitestFailures = (report: VitestReport): FailedTest[] =>
  (report.testResults ?? []).flatMap((file) => {
    const failed = (file.assertionResults ?? []).filter((result) => result.status === "failed");
    const name = relative(file.name ?? "");
    if (failed.length === 0 && file.status === "failed") return [{ file: name, name: "(the file, outside its tests)", message: firstLine(file.message) }];
    return failed.map((result) => ({ file: name, name: result.fullName ?? "", message: firstLine(result.failureMessages?.[0]) }));
  });

/** The failed tests of a Playwright JSON report. */
export const playwrightFailures = (report: PlaywrightReport): FailedTest[] => {
  const failures: FailedTest[] = [];
  const visit = (suite: PlaywrightSuite, titles: readonly string[]) => {
    const here = suite.file !== undefined && suite.title === suite.file ? titles : [...titles, suite.title ?? ""].filter((title) => title !== "");
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? [])
        if (test.status === "unexpected")
          failures.push({
            file: `${spec.file ?? suite.file ?? ""}${spec.line === undefined ? "" : `:${spec.line}`}`,
            name: [...here, spec.title ?? ""].join(" › "),
            message: firstLine(test.results?.at(-1)?.error?.message),
          });
    for (const child of suite.suites ?? []) visit(child, here);
  };
  for (const suite of report.suites ?? []) visit(suite, []);
  return failures;
};

const readFailures = (record: StageRecord): FailedTest[] => {
  if (record.kind === "check" || record.reportFile === "" || !fs.existsSync(record.reportFile)) return [];
  const report: unknown = JSON.parse(fs.readFileSync(record.reportFile, "utf8"));
  if (typeof report !== "object" || report === null) return [];
  return record.kind === "vitest" ? vitestFailures(report) : playwrightFailures(report);
};

/** Per stage that has any, its failed tests (at most `limit` each, then how many more), for the lane's end. */
export const formatFailures = (laneDir: string, limit = 25): string => {
  const tsv = fs.readFileSync(path.join(laneDir, "stages.tsv"), "utf8");
  const blocks = parseStageRecords(tsv).flatMap((record) => {
    const failures = readFailures(record);
    if (failures.length === 0) return [];
    const shown = failures.slice(0, limit).map((failure) => `  ✗ ${failure.file} › ${failure.name}${failure.message === "" ? "" : `\n      ${failure.message.slice(0, 300)}`}`);
    const more = failures.length > limit ? [`  … and ${failures.length - limit} more`] : [];
    return [`== ${record.title}: ${failures.length} failed`, ...shown, ...more];
  });
  return blocks.join("\n");
};

/** A stage's row: its counts, and whether it passed (exit 0 and no failed test), failed, or was skipped. */
export const stageRow = (record: StageRecord, counts: TestCounts | null): StageRow => {
  if (record.exitCode === null) return { ...record, counts, outcome: "skipped", note: record.skipReason };
  const failedTests = counts?.failed ?? 0;
  if (record.exitCode === 0 && failedTests === 0) return { ...record, counts, outcome: "passed", note: "" };
  const note =
    failedTests > 0
      ? ""
      : record.kind !== "check" && counts === null
        ? `exit ${record.exitCode}, no report written (see its output above)`
        : `exit ${record.exitCode}${record.kind === "check" ? "" : " outside its tests (a setup or teardown failure: see its output above)"}`;
  return { ...record, counts, outcome: "failed", note };
};

export const readStageRows = (laneDir: string): StageRow[] => {
  const tsv = fs.readFileSync(path.join(laneDir, "stages.tsv"), "utf8");
  return parseStageRecords(tsv).map((record) => stageRow(record, readCounts(record)));
};

/**
 * The lane's totals: tests passed, failed and skipped over every stage; a stage that failed with
 * no failed test (a type error, a failed build, a setup or teardown failure) counts as one failed,
 * so that `0 failed` is never printed for a lane that fails.
 */
export const laneTotals = (rows: readonly StageRow[]): { passed: number; failed: number; skipped: number } =>
  rows.reduce(
    (total, row) => ({
      passed: total.passed + (row.counts?.passed ?? 0),
      failed: total.failed + (row.counts?.failed ?? 0) + (row.outcome === "failed" && (row.counts?.failed ?? 0) === 0 ? 1 : 0),
      skipped: total.skipped + (row.counts?.skipped ?? 0),
    }),
    { passed: 0, failed: 0, skipped: 0 },
  );

/** The last line of a lane: `N passed, N failed`, with `, N skipped` when tests were skipped. */
export const laneLine = (totals: { passed: number; failed: number; skipped: number }): string =>
  `${totals.passed} passed, ${totals.failed} failed${totals.skipped > 0 ? `, ${totals.skipped} skipped` : ""}`;

const pad = (text: string, width: number, right = false) => (right ? text.padStart(width) : text.padEnd(width));

/** The table: stage, result, files, passed, failed, skipped, seconds, note; then the lane's line last. */
export const formatLaneSummary = (lane: string, rows: readonly StageRow[]): string => {
  const header = ["stage", "result", "files", "passed", "failed", "skipped", "seconds", "note"];
  const cells = rows.map((row) => [
    row.title,
    row.outcome === "failed" ? "FAILED" : row.outcome,
    row.counts === null ? "-" : String(row.counts.files),
    row.counts === null ? "-" : String(row.counts.passed),
    row.counts === null ? "-" : String(row.counts.failed),
    row.counts === null ? "-" : String(row.counts.skipped),
    row.outcome === "skipped" ? "-" : String(row.seconds),
    row.note,
  ]);
  const seconds = rows.reduce((sum, row) => sum + row.seconds, 0);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => (line[column] ?? "").length)));
  const numeric = new Set([2, 3, 4, 5, 6]);
  const render = (line: readonly string[]) =>
    line
      .map((cell, column) => (column === line.length - 1 ? cell : pad(cell, widths[column] ?? 0, numeric.has(column))))
      .join("  ")
      .trimEnd();
  return [
    `== ${lane}: summary (${seconds} s in stages)`,
    render(header),
    render(widths.map((width) => "-".repeat(width))),
    ...cells.map(render),
    laneLine(laneTotals(rows)),
  ].join("\n");
};
