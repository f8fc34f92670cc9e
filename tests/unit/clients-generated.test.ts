import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { registry } from "@/lib/operations";
import { generatedClientFiles, PY_GENERATED, TS_OPERATIONS } from "@/scripts/clients/files";
import { readingList } from "../fixtures/fifth-operation";

/**
 * The clients are generated from the registry (scripts/generate-clients.ts): the files in the tree
 * are exactly what the generator writes now — a changed operation without regenerating fails
 * here — and an operation added to the registry gets its SDK method, types and Python method by
 * regenerating alone, which then type-check (TypeScript) and import (Python) with the rest of the
 * clients unchanged.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "sl-clients-gen-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe("the generated client files", () => {
  it("are current: npx tsx scripts/generate-clients.ts would change nothing", () => {
    const stale = Object.entries(generatedClientFiles(ROOT)).filter(([file, content]) => {
      const full = path.join(ROOT, file);
      return !fs.existsSync(full) || fs.readFileSync(full, "utf8") !== content;
    });
    expect(stale.map(([file]) => file), "stale: run npx tsx scripts/generate-clients.ts").toEqual([]);
  });

  describe("with a fifth operation added to the registry", () => {
    const files = generatedClientFiles(ROOT, [...registry, readingList]);
    const typescript = files[TS_OPERATIONS] ?? "";
    const python = files[PY_GENERATED] ?? "";

    it("gives the SDK a documented, typed method, its parameters and its record type", () => {
      expect(typescript).toContain("getReadingList(params: GetReadingListParams, options?: CallOptions): Promise<Answer<ReadingListDetails>>");
      expect(typescript).toContain("export type GetReadingListParams = {");
      expect(typescript).toContain("Get a club member's reading list: `GET /v1/bookclub/get_reading_list` (operation `get_reading_list`).");
      expect(typescript).toContain("Costs 3 credits");
      expect(typescript).toMatch(/export type BatchOperationId = [^;]*"get_reading_list"/);
    });

    it("type-checks with the SDK's sources as they are", () => {
      const src = path.join(scratch, "typescript", "src");
      fs.cpSync(path.join(ROOT, "clients", "typescript", "src"), src, { recursive: true });
      fs.writeFileSync(path.join(src, "generated", "operations.ts"), typescript);
      fs.copyFileSync(path.join(ROOT, "clients", "typescript", "package.json"), path.join(scratch, "typescript", "package.json"));
      const config = ts.readConfigFile(path.join(ROOT, "clients", "typescript", "tsconfig.json"), (file) => fs.readFileSync(file, "utf8"));
      const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.join(scratch, "typescript"));
      // The SDK's entry point and what it imports (the generated module among them); the command
      // line and the receiver, which need Node's types, do not read the operation types otherwise.
      const program = ts.createProgram({ rootNames: [path.join(src, "index.ts")], options: { ...parsed.options, noEmit: true, types: [] } });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      expect(diagnostics).toEqual([]);
    });

    it("gives the Python client its method, which imports and carries the parameters", () => {
      expect(python).toContain("def get_reading_list(self, *, member_id: str, timeout: float | None = None) -> Answer[ReadingListDetails]:");
      const probe = spawnSync("python3", ["--version"], { encoding: "utf8" });
      if (probe.status !== 0) {
        console.log("SKIPPED: importing the generated Python module — python3 is not on PATH");
        return;
      }
      const packageDir = path.join(scratch, "python", "social_lookup");
      fs.cpSync(path.join(ROOT, "clients", "python", "social_lookup"), packageDir, { recursive: true });
      fs.writeFileSync(path.join(packageDir, "_generated.py"), python);
      const imported = spawnSync(
        "python3",
        ["-c", "import inspect, social_lookup as s; print(list(inspect.signature(s.SocialLookup.get_reading_list).parameters)); print(s.OPERATIONS['get_reading_list']['path'])"],
        { cwd: path.dirname(packageDir), encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } },
      );
      expect(imported.stderr).toBe("");
      expect(imported.stdout.trim().split("\n")).toEqual(["['self', 'member_id', 'timeout']", "/v1/bookclub/get_reading_list"]);
    });
  });
});
