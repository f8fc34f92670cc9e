import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrate } from "@/lib/database";
import { openDatabase } from "@/lib/db/client";

/**
 * A migrated template of the embedded database. A test's fresh database is a copy of its folder,
 * so that each test file, CLI call or production server pays neither PGlite's first start in a
 * new folder (initdb) nor the migrations; `migrate` still runs on the copy and finds nothing to do,
 * so a missing migration is still caught. The unit and API projects' global setups make one per run
 * and offer it to their test files as `pgliteTemplate` (tests/support/databases.ts).
 */

/** Makes the template under `root` (opened, migrated with the app's migrations, closed); returns its folder. */
export const makeMigratedTemplate = async (root: string): Promise<string> => {
  const db = await openDatabase({ dataDir: root, timeoutMs: 60_000, upkeep: false }, migrate);
  await db.close();
  return path.join(root, "pglite");
};

/**
 * Copies the template into `dataDir` as its embedded database when `dataDir` has none yet (the
 * folder's modes come along: owner-only, as the server leaves them).
 */
export const copyTemplate = (template: string | null, dataDir: string): void => {
  const target = path.join(dataDir, "pglite");
  if (template === null || fs.existsSync(target)) return;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.cpSync(template, target, { recursive: true });
};

/** The unit project's global setup: the template for every test file of the run. */
export default async function setup(project: TestProject): Promise<() => void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sl-unit-template-"));
  project.provide("pgliteTemplate", await makeMigratedTemplate(root));
  return () => fs.rmSync(root, { recursive: true, force: true });
}
