import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSettler, type SettleRequest } from "@/lib/credits/settle";
import type { Db } from "@/lib/db/client";
import { keyAccount } from "@/lib/usage/account";
import { burnRateForecast } from "@/lib/usage/forecast";
import { utcDay } from "@/lib/usage/period";
import { summary } from "@/lib/usage/summary";
import { createUser, setUserStatus } from "@/lib/users/repository";
import { createTeamWorkspace, personalWorkspaceId } from "@/lib/workspaces/repository";
import { roleMay, WORKSPACE_ROLES } from "@/lib/workspaces/roles";
import { embeddedInRun, testDatabases } from "@/tests/support/databases";
import { createAuthenticator } from "./authenticate";
import { createKey, revokeKey, rollKey } from "./repository";
import { createTokenVerifier } from "./tokens";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";

/**
 * "Is this key usable" is written once (lib/keys/usable-keys.sql). Every place that needs the
 * answer — authentication, settlement, /v1/account, the usage summary and the forecast — must
 * give the same one for each kind of key.
 */
type KeyCase = { label: string; keyId: string; token: string; usable: boolean };

describe.each(await testDatabases())("the usable-key rule on $name", (database) => {
  let db: Db;
  const cases: KeyCase[] = [];

  beforeAll(async () => {
    db = await database.open();
    const owner = await createUser(db, { email: `owner-${database.name}@example.com`, name: "o", role: "analyst", passwordHash: null, creditAllowance: 0 });
    const gone = await createUser(db, { email: `gone-${database.name}@example.com`, name: "g", role: "analyst", passwordHash: null, creditAllowance: 0 });
    const issue = async (label: string, ownerId: string | null, usable: boolean, expiresAt: Date | null = null, workspaceId?: string) => {
      const { key, token } = await createKey(db, SECRET, { name: label, ownerId, credits: 100, qpsLimit: 5, expiresAt, workspaceId });
      if (workspaceId !== undefined) await db.query("UPDATE api_keys SET pool_id = NULL WHERE id = $1", [key.id]);
      cases.push({ label, keyId: key.id, token, usable });
      return { key, token };
    };
    await issue("owned by an enabled user", owner.id, true);
    await issue("without an owner", null, true);
    await issue("expiring in an hour", owner.id, true, new Date(Date.now() + 3_600_000));
    await issue("expired", owner.id, false, new Date(Date.now() - 1000));
    const revoked = await issue("revoked", owner.id, false);
    await revokeKey(db, revoked.key.id);
    await issue("owned by a disabled user", gone.id, false);
    await setUserStatus(db, gone.id, "disabled");
    // A member's keys in a team are usable while their role there runs lookups (docs/teams.md).
    // Each team key keeps its own 100 credits here (no pool), so settlement's figures stay per key.
    const team = await createTeamWorkspace(db, { id: owner.id, email: owner.email, ip: "127.0.0.1" }, `team-${database.name}`);
    for (const role of WORKSPACE_ROLES) {
      const member = await createUser(db, { email: `member-${role}-${database.name}@example.com`, name: role, role: "analyst", passwordHash: null, creditAllowance: 0 });
      await db.query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)", [team.id, member.id, role]);
      await issue(`a team ${role}'s`, member.id, roleMay(role, "lookups.run"), null, team.id);
      // The same user's key in their personal workspace, where they are its owner, stays usable.
      await issue(`a team ${role}'s personal one`, member.id, true, null, personalWorkspaceId(member.id));
    }
    // A key the service administrator made in a team they are not a member of is not suspended.
    const serviceAdmin = await createUser(db, { email: `admin-${database.name}@example.com`, name: "a", role: "admin", passwordHash: null, creditAllowance: 0 });
    await issue("the service administrator's in a team", serviceAdmin.id, true, null, team.id);
    // A roll: the new token is usable; the old one only during its grace period.
    const rolledKey = await createKey(db, SECRET, { name: "rolled", ownerId: owner.id, credits: 100, qpsLimit: 5, expiresAt: null });
    const withGrace = await rollKey(db, SECRET, rolledKey.key.id, 3_600_000);
    cases.push({ label: "rolled: its new token", keyId: rolledKey.key.id, token: withGrace?.token ?? "", usable: true });
    cases.push({ label: "rolled: its old token, in its grace", keyId: rolledKey.key.id, token: rolledKey.token, usable: true });
    const noGraceKey = await createKey(db, SECRET, { name: "rolled-no-grace", ownerId: owner.id, credits: 100, qpsLimit: 5, expiresAt: null });
    await rollKey(db, SECRET, noGraceKey.key.id, 0);
    cases.push({ label: "rolled without grace: its old token", keyId: noGraceKey.key.id, token: noGraceKey.token, usable: false });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });

  const keyCases = () => cases.filter((entry) => !entry.label.startsWith("rolled"));

  it("authentication accepts exactly the usable keys' tokens", async () => {
    const authenticator = createAuthenticator({ db: async () => db, verify: createTokenVerifier(SECRET), ttlMs: 0 });
    const seen = await Promise.all(cases.map(async (entry) => [entry.label, (await authenticator.authenticate(`Bearer ${entry.token}`)).ok]));
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(cases.map((entry) => [entry.label, entry.usable])));
  });

  it("settlement charges exactly the usable keys and answers 401 for the rest, charging nothing", async () => {
    const settler = createSettler(async () => db);
    const request = (keyId: string): SettleRequest => ({
      requestId: crypto.randomUUID(),
      keyId,
      operation: "followers",
      costCredits: 2,
      outcome: "found",
      paramsSummary: "",
      startedAt: Date.now(),
      startedPerf: performance.now(),
    });
    const settled = await Promise.all(keyCases().map(async (entry) => [entry.label, (await settler.settle(request(entry.keyId))).status]));
    expect(Object.fromEntries(settled)).toEqual(Object.fromEntries(keyCases().map((entry) => [entry.label, entry.usable ? 200 : 401])));
    const remaining = await db.query<{ id: string; c: number }>("SELECT id, credits_remaining::int AS c FROM api_keys WHERE id = ANY($1)", [
      keyCases().map((entry) => entry.keyId),
    ]);
    for (const entry of keyCases()) {
      expect(remaining.find((row) => row.id === entry.keyId)?.c, entry.label).toBe(entry.usable ? 98 : 100);
    }
  });

  it("/v1/account, the usage summary and the forecast count exactly the usable keys", async () => {
    const accounts = await Promise.all(keyCases().map(async (entry) => [entry.label, (await keyAccount(db, entry.keyId)) !== null]));
    expect(Object.fromEntries(accounts)).toEqual(Object.fromEntries(keyCases().map((entry) => [entry.label, entry.usable])));

    const scope = { kind: "keys" as const, keyIds: keyCases().map((entry) => entry.keyId) };
    const usable = keyCases().filter((entry) => entry.usable);
    const today = utcDay(new Date());
    const result = await summary(db, scope, { from: today, to: today, groupBy: ["day"] });
    expect(result.totals.activeKeys).toBe(usable.length);
    expect(result.totals.creditsRemaining).toBe(usable.length * 98);
    const forecast = await burnRateForecast(db, scope);
    expect(forecast.keys.map((key) => key.keyId).sort()).toEqual(usable.map((entry) => entry.keyId).sort());
  });
});

describe.runIf(embeddedInRun)("the usable-key rule in the source", () => {
  it("suspends exactly the roles the role table forbids lookups", () => {
    const sql = fs.readFileSync(path.join("lib", "keys", "usable-keys.sql"), "utf8");
    const listed = /m\.role NOT IN \(([^)]*)\)/.exec(sql)?.[1]?.split(",").map((role) => role.trim().replace(/'/g, ""));
    expect(listed).toEqual(WORKSPACE_ROLES.filter((role) => roleMay(role, "lookups.run")));
  });

  const sources = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(full);
      return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
    });

  it("is not restated in TypeScript: queries name usable_keys instead", () => {
    const restated = /expires_at\s*>\s*now\(\)|status\s*=\s*'disabled'|status\s*=\s*'active'\s+AND\s+\(?\s*\w*\.?expires_at/i;
    // lib/db/migrations.ts keeps the landed migrations' history verbatim (0003 restated the rule).
    const offenders = ["lib", "app", "scripts"]
      .flatMap(sources)
      .filter((file) => file !== path.join("lib", "db", "migrations.ts") && restated.test(fs.readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });
});
