import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ROOT, type ApiTarget } from "./harness";
import { call } from "./http";

/**
 * The OpenAPI document's quality (docs/api.md "OpenAPI and snippets"): the document the server
 * serves passes Redocly's `recommended` rules with no error and no warning, linted offline by the
 * pinned dev dependency (@redocly/cli).
 */
const targets = inject("apiTargets");
const run = promisify(execFile);
const REDOCLY = path.join(ROOT, "node_modules", ".bin", "redocly");

type LintReport = {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
};

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-openapi-lint-"));
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

describe.each(targets)("$kind server", (target: ApiTarget) => {
  it("serves /v1/openapi.json that Redocly's recommended rules pass with 0 errors and 0 warnings", async () => {
    const served = await call(target, "/v1/openapi.json");
    expect(served.status).toBe(200);
    const file = path.join(workDir, `openapi-${target.kind}.json`);
    fs.writeFileSync(file, served.text);
    // Exit code 1 means errors; the report is on stdout either way.
    const { stdout } = await run(REDOCLY, ["lint", "--extends", "recommended", "--format", "json", file], {
      cwd: workDir,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(stdout) as LintReport;
    const problems = report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer ?? "?"}: ${problem.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });
});
