import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { embeddedInRun, openForSuite, testDatabases } from "@/tests/support/databases";
import { creditPolicySql, migrate, migrations, POLICY_FILES } from "@/lib/database";
import { PolicyFileMissingError } from "./policy";

describe.runIf(embeddedInRun)("the credit policy files", () => {
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

describe.each(await testDatabases())("0016_refill_payer on $name", (database) => {
  const db = openForSuite(database);
  const at = (id: string) => migrations.findIndex((migration) => migration.id === id);

  it("comes before the key policy SQL that reads its columns, which keeps the id it was recorded under", () => {
    expect(at("0011_key_policies_sql")).toBeGreaterThan(at("0016_refill_payer"));
    expect(at("0016_refill_payer")).toBeGreaterThan(at("0015_usage_channel"));
  });

  it("migrates a database of the code before it: refills on analysts' keys are paid by their owner, the rest stay granted", async () => {
    const userOf = async (id: string, role: string, creditAllowance: number) => {
      await db().query("INSERT INTO users (id, email, role, credit_allowance) VALUES ($1, $1 || '@example.com', $2, $3)", [id, role, creditAllowance]);
      return { id };
    };
    const analyst = await userOf("usr_old_analyst", "analyst", 50);
    const admin = await userOf("usr_old_admin", "admin", 0);
    const keyOf = async (id: string, ownerId: string | null, withRefill = true) => {
      await db().query(
        `INSERT INTO api_keys (id, name, owner_id, token_hash, token_prefix, credits_remaining, credits_granted, qps_limit,
           refill_credits, refill_interval, refill_mode)
         VALUES ($1, 'old', $2, convert_to($1, 'UTF8'), '…', 0, 0, 5, $3::bigint, CASE WHEN $3::bigint IS NOT NULL THEN 'daily' END,
           CASE WHEN $3::bigint IS NOT NULL THEN 'increase_by' END)`,
        [id, ownerId, withRefill ? 100 : null],
      );
      return id;
    };
    const analystKey = await keyOf("key_old_analyst", analyst.id);
    const analystPlain = await keyOf("key_old_plain", analyst.id, false);
    const adminKey = await keyOf("key_old_admin", admin.id);
    const cliKey = await keyOf("key_old_cli", null);
    // The database as the code before 0016 left it: no payer columns, 0011 recorded with its older
    // text, and a refill function that reads only the columns of then (LANGUAGE sql is checked when created).
    await db().exec(`
      ALTER TABLE api_keys DROP COLUMN refill_payer_id, DROP COLUMN refill_stopped_at, DROP COLUMN refill_stopped_credits;
      CREATE OR REPLACE FUNCTION refill_keys(at timestamptz)
      RETURNS TABLE (r_key_id text, r_period date, r_added bigint, r_remaining bigint)
      LANGUAGE sql AS $f$ SELECT id, refilled_period, 0::bigint, credits_remaining FROM api_keys WHERE refill_credits IS NOT NULL AND at IS NULL $f$;
      DELETE FROM schema_migrations WHERE id = '0016_refill_payer';
      UPDATE schema_migrations SET checksum = 'older' WHERE id = '0011_key_policies_sql';
    `);
    expect(await migrate(db())).toEqual(["0016_refill_payer", "0011_key_policies_sql"]);
    const payers = await db().query<{ id: string; refill_payer_id: string | null }>(
      "SELECT id, refill_payer_id FROM api_keys WHERE id = ANY($1)",
      [[analystKey, analystPlain, adminKey, cliKey]],
    );
    expect(Object.fromEntries(payers.map((row) => [row.id, row.refill_payer_id]))).toEqual({
      [analystKey]: analyst.id,
      [analystPlain]: null,
      [adminKey]: null,
      [cliKey]: null,
    });
    // The refill function is today's: the owner's 50 cannot pay 100, so the analyst's refill stops.
    await db().query("UPDATE api_keys SET refilled_period = '2032-01-01' WHERE id = ANY($1)", [[analystKey, adminKey, cliKey]]);
    const refilled = await db().query<{ r_key_id: string }>("SELECT r_key_id FROM refill_keys('2032-01-02T00:00:00Z')");
    expect(refilled.map((row) => row.r_key_id).sort()).toEqual([adminKey, cliKey].sort());
    const [stopped] = await db().query<{ credits: number }>("SELECT refill_stopped_credits::int AS credits FROM api_keys WHERE id = $1", [analystKey]);
    expect(stopped?.credits).toBe(100);
    expect(await migrate(db())).toEqual([]);
  });
});
