import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { migrate } from "./migrate";
import { creditPolicySql, POLICY_FILES, PolicyFileMissingError } from "./policy";

describe("the credit policy files", () => {
  it("are all there, each with the CREATE OR REPLACE a repeatable migration needs", () => {
    for (const file of POLICY_FILES) {
      const text = fs.readFileSync(file, "utf8");
      expect(text, file).toMatch(/CREATE OR REPLACE (FUNCTION|VIEW)/);
      expect(text, file).not.toMatch(/CREATE (FUNCTION|VIEW)/);
    }
  });

  it("name the missing file and where they were looked for when the app directory lacks them", () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "sl-no-policy-"));
    try {
      expect(() => creditPolicySql(elsewhere)).toThrow(PolicyFileMissingError);
      expect(() => creditPolicySql(elsewhere)).toThrow(`${path.join(elsewhere, "lib/keys/usable-keys.sql")} (ENOENT)`);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe.each(await testDatabases())("0006_credit_policy on $name", (database) => {
  // Opening migrates: the suite's first look at the database is what a fresh open left behind.
  const db = openForSuite(database);

  it("is recorded with the policy's checksum and not applied again while the files are unchanged", async () => {
    const [recorded] = await db().query<{ checksum: string | null }>("SELECT checksum FROM schema_migrations WHERE id = '0006_credit_policy'");
    expect(recorded?.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(await migrate(db())).toEqual([]);
  });

  it("is applied again when a policy file changed since (here: a database holding an older text)", async () => {
    // As if the functions had been replaced by another version of the files.
    await db().exec("CREATE OR REPLACE FUNCTION credits_spent_today(p_key text) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 42::bigint $$");
    await db().query("UPDATE schema_migrations SET checksum = 'older' WHERE id = '0006_credit_policy'");
    expect(await migrate(db())).toEqual(["0006_credit_policy"]);
    const [spent] = await db().query<{ spent: number }>("SELECT credits_spent_today('no-such-key')::int AS spent");
    expect(spent?.spent).toBe(0);
    expect(await migrate(db())).toEqual([]);
  });

  it("replaces 0003's per-request rollup function", async () => {
    const rows = await db().query<{ name: string }>(
      "SELECT proname AS name FROM pg_proc WHERE proname IN ('record_daily', 'add_usage_daily') AND pg_function_is_visible(oid) ORDER BY 1",
    );
    expect(rows.map((row) => row.name)).toEqual(["add_usage_daily"]);
  });
});
