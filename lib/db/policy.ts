import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The credit policy's SQL — the usable-key rule, the daily rollup, settlement, sweep and void —
 * lives in .sql files beside its domain, so that it reads as SQL in one place. They are read
 * from the app directory (the process's working directory, as for DATA_DIR and .next) when the
 * database is migrated: every way the app runs — `next start`, the custom server, the tsx CLIs,
 * the tests, a container image — runs from the app directory, which must hold these files.
 * Order matters: each file may use what an earlier one defines.
 */
export const POLICY_FILES = [
  "lib/keys/usable-keys.sql",
  "lib/usage/daily.sql",
  "lib/credits/spent-today.sql",
  "lib/credits/settle.sql",
  "lib/credits/sweep.sql",
  "lib/credits/void.sql",
] as const;

export class PolicyFileMissingError extends Error {}

const readPolicyFile = (root: string, file: string): string => {
  const location = path.join(root, file);
  try {
    return fs.readFileSync(location, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new PolicyFileMissingError(
      `Cannot read the credit policy file ${location} (${reason}). The server and CLIs read lib/**/*.sql ` +
        `from the app directory: start them from it, and ship those files with the app.`,
    );
  }
};

/** Key refills and alert thresholds (docs/api.md "Keys"): over columns of migration 0009, so applied after it. */
export const KEY_POLICY_FILES = ["lib/keys/refill.sql", "lib/alerts/thresholds.sql"] as const;

export const keyPolicySql = (root: string = process.cwd()): string =>
  KEY_POLICY_FILES.map((file) => `-- ${file}\n${readPolicyFile(root, file)}`).join("\n");

/** The policy as one script (CREATE OR REPLACE throughout: applying it twice changes nothing). */
export const creditPolicySql = (root: string = process.cwd()): string =>
  POLICY_FILES.map((file) => `-- ${file}\n${readPolicyFile(root, file)}`).join("\n");

export const checksum = (sql: string): string => crypto.createHash("sha256").update(sql).digest("hex");
