import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSettler } from "@/lib/credits/settle";
import { migrate } from "@/lib/database";
import { keyAccounts } from "@/lib/usage/account";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import type { Db } from "./types";

/**
 * Teams change nothing for a single user (docs/teams.md "Existing data"): a database written by
 * the code before workspaces (commit BEFORE_TEAMS: its migrations and policy SQL, read from the
 * repository's history) and migrated by today's code keeps every key, balance and usage row, and
 * /v1/account's figures of each key — read by that code's lib/usage/account.ts before, today's
 * after — are the same (today's answer adds the pool's fields, null for a key of its own). Each user gets a personal workspace they own; their keys and batches
 * belong to it and keep their own balances (no pool).
 */
const BEFORE_TEAMS = "9765d31";
const root = path.resolve(__dirname, "../..");
const oldRoot = fs.mkdtempSync(path.join(root, "tests", ".before-teams-"));
afterAll(() => fs.rmSync(oldRoot, { recursive: true, force: true }));

const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const copyOld = (file: string, edit: (text: string) => string = (text) => text) => {
  fs.mkdirSync(path.dirname(path.join(oldRoot, file)), { recursive: true });
  fs.writeFileSync(path.join(oldRoot, file), edit(git("show", `${BEFORE_TEAMS}:${file}`)));
};
const OLD_POLICY = {
  "0006_credit_policy": [
    "lib/keys/usable-keys.sql",
    "lib/usage/daily.sql",
    "lib/credits/spent-today.sql",
    "lib/credits/settle.sql",
    "lib/credits/sweep.sql",
    "lib/credits/void.sql",
  ],
  "0011_key_policies_sql": ["lib/keys/refill.sql", "lib/alerts/thresholds.sql"],
} as const;
for (const file of git("ls-tree", "--name-only", BEFORE_TEAMS, "lib/db/migrations/").split("\n").filter(Boolean)) copyOld(file);
copyOld("lib/db/policy.ts");
copyOld("lib/db/migrate.ts", (text) => text.replace('from "./types"', 'from "@/lib/db/types"'));
for (const file of Object.values(OLD_POLICY).flat()) copyOld(file);
// /v1/account's figures as that code read them (its reader only imports types).
copyOld("lib/usage/account.ts");
const oldAccounts = (await import(path.join(oldRoot, "lib/usage/account.ts"))) as { keyAccounts: typeof keyAccounts };
type OldMigrate = { applyMigrations: (db: Db, policySql: typeof OLD_POLICY, root: string) => Promise<string[]> };
const old = (await import(path.join(oldRoot, "lib/db/migrate.ts"))) as OldMigrate;

describe.each(await testDatabases())("a database written before teams, migrated by today's code, on $name", (database) => {
  const db = openForSuite(database, { migrate: (opened) => old.applyMigrations(opened, OLD_POLICY, oldRoot), upkeep: false });
  const keyIds: string[] = [];
  const userIds: string[] = [];

  const newKey = async (ownerId: string | null, credits: number, dailyCap: number | null) => {
    const id = `key_${crypto.randomBytes(9).toString("base64url")}`;
    await db().query(
      `INSERT INTO api_keys (id, name, owner_id, token_hash, token_prefix, credits_remaining, credits_granted, qps_limit, daily_credit_cap)
       VALUES ($1, $2, $3, $4, '…abcdef', $5, $5, 5, $6)`,
      [id, `key of ${ownerId ?? "no one"}`, ownerId, crypto.randomBytes(32), credits, dailyCap],
    );
    keyIds.push(id);
    return id;
  };

  it("keeps every key, balance and usage row, and the same /v1/account figures", async () => {
    expect((await db().query<{ id: string }>("SELECT id FROM schema_migrations WHERE id = '0020_workspaces'")).length).toBe(0);
    for (const label of ["solo", "other"]) {
      // Written as that code wrote users: today's columns do not exist yet.
      const id = `usr_${crypto.randomBytes(9).toString("base64url")}`;
      await db().query("INSERT INTO users (id, email, name, role, password_hash, credit_allowance) VALUES ($1, $2, $3, 'analyst', NULL, 500)", [
        id,
        `${label}-${crypto.randomUUID()}@example.test`,
        label,
      ]);
      userIds.push(id);
    }
    const [solo = "", other = ""] = userIds;
    await newKey(solo, 100, null);
    await newKey(solo, 40, 10);
    await newKey(other, 7, null);
    const cliKey = await newKey(null, 1000, null);
    await db().query("INSERT INTO batches (id, user_id, operation, total, max_credits, max_cost_credits) VALUES ($1, $2, 'followers', 0, 10, 10)", [
      crypto.randomUUID(),
      solo,
    ]);
    // Usage written by the settlement of that code (the SQL function the old migration installed).
    const settler = createSettler(async () => db());
    for (const [index, keyId] of keyIds.entries()) {
      for (const outcome of ["found", "found", "not_found", "found"] as const) {
        await settler.settle({
          requestId: crypto.randomUUID(),
          keyId,
          operation: "followers",
          costCredits: 2 + index,
          outcome,
          paramsSummary: "userid=1",
          startedAt: Date.now(),
          startedPerf: performance.now(),
        });
      }
    }
    const snapshot = async (read: typeof keyAccounts) => ({
      keys: await db().query("SELECT id, owner_id, status, credits_remaining::float8 AS credits, credits_granted::float8 AS granted, daily_credit_cap FROM api_keys ORDER BY id"),
      usage: await db().query("SELECT request_id, key_id, status, credits_charged FROM usage_events ORDER BY request_id"),
      accounts: Object.fromEntries(await read(db(), keyIds)),
    });
    const before = await snapshot(oldAccounts.keyAccounts);
    expect(Object.keys(before.accounts)).toHaveLength(4);
    expect(before.usage.length).toBe(16);

    const applied = await migrate(db());
    expect(applied).toContain("0020_workspaces");
    expect(applied).toContain("0021_active_workspace");
    expect(applied).toContain("0022_pool_refills");
    // Today's figures of a key with its own balance are that code's, plus what teams added (null for it).
    const after = await snapshot(keyAccounts);
    expect(after.keys).toEqual(before.keys);
    expect(after.usage).toEqual(before.usage);
    for (const id of keyIds) expect(after.accounts[id]).toMatchObject(before.accounts[id] ?? {});

    // Each user owns a personal workspace; their keys and batches are in it, with their own balances.
    const keys = await db().query<{ id: string; owner_id: string | null; workspace_id: string | null; pool_id: string | null }>(
      "SELECT id, owner_id, workspace_id, pool_id FROM api_keys ORDER BY id",
    );
    for (const key of keys) {
      expect(key.workspace_id).toBe(key.owner_id === null ? null : `wsp_${key.owner_id}`);
      expect(key.pool_id).toBeNull();
    }
    expect(keys.find((key) => key.id === cliKey)?.workspace_id).toBeNull();
    const members = await db().query<{ workspace_id: string; user_id: string; role: string; personal_user_id: string | null }>(
      `SELECT m.workspace_id, m.user_id, m.role, w.personal_user_id FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.user_id = ANY($1::text[]) ORDER BY m.user_id`,
      [userIds],
    );
    expect(members).toEqual(
      [...userIds].sort().map((id) => ({ workspace_id: `wsp_${id}`, user_id: id, role: "owner", personal_user_id: id })),
    );
    const batches = await db().query<{ workspace_id: string | null }>("SELECT workspace_id FROM batches WHERE user_id = $1", [solo]);
    expect(batches).toEqual([{ workspace_id: `wsp_${solo}` }]);
    const active = await db().query<{ active_workspace_id: string | null }>("SELECT active_workspace_id FROM users WHERE id = ANY($1::text[])", [userIds]);
    expect(active.every((row) => row.active_workspace_id === null)).toBe(true);

    // And the keys charge as before: a request after the migration costs the key's own balance.
    const [firstKey = ""] = keyIds;
    const result = await settler.settle({
      requestId: crypto.randomUUID(),
      keyId: firstKey,
      operation: "followers",
      costCredits: 2,
      outcome: "found",
      paramsSummary: "userid=1",
      startedAt: Date.now(),
      startedPerf: performance.now(),
    });
    expect(result.creditsCharged).toBe(2);
    expect((await keyAccounts(db(), [firstKey])).get(firstKey)?.credits_remaining).toBe((before.accounts[firstKey]?.credits_remaining ?? 0) - 2);
  });
});
