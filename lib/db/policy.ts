import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The policy SQL of the domains — the usable-key rule, the daily rollup, settlement, sweep, void,
 * refills, alert thresholds — lives in .sql files beside each domain, so that it reads as SQL in
 * one place; each domain lists its files and lib/database.ts assembles them per repeatable
 * migration. They are read from the app directory (the process's working directory, as for
 * DATA_DIR and .next) when the database is migrated: every way the app runs — `next start`, the
 * custom server, the tsx CLIs, the tests, a container image — runs from the app directory, which
 * must hold these files. Order matters: each file may use what an earlier one defines.
 */
export class PolicyFileMissingError extends Error {}

/** A .sql file of the app (a policy file or a migration), `what` naming it in the error when it is missing. */
export const readSqlFile = (root: string, file: string, what = "credit policy file"): string => {
  const location = path.join(root, file);
  try {
    return fs.readFileSync(location, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new PolicyFileMissingError(
      `Cannot read the ${what} ${location} (${reason}). The server and CLIs read lib/**/*.sql ` +
        `from the app directory: start them from it, and ship those files with the app.`,
    );
  }
};

/** Policy files (paths from the app directory) as one script (CREATE OR REPLACE throughout: applying it twice changes nothing). */
export const policyScript = (files: readonly string[], root: string = process.cwd()): string =>
  files.map((file) => `-- ${file}\n${readSqlFile(root, file)}`).join("\n");

export const checksum = (sql: string): string => crypto.createHash("sha256").update(sql).digest("hex");
