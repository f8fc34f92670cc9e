import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "@/lib/audit/log";
import { bootstrapAdmin } from "@/lib/users/bootstrap";
import { createUser, getUser } from "@/lib/users/repository";
import { openForSuite, pgliteDatabase } from "@/tests/support/databases";
import {
  chooseConsoleKey,
  consoleToken,
  issueKey,
  revokeVisibleKey,
  rollVisibleKey,
  topUpAnyKey,
  updateVisibleKeyPolicy,
  visibleKey,
  visibleKeys,
  type Principal,
} from "./manage";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";
const db = openForSuite(pgliteDatabase());
let alice: Principal;
let bob: Principal;
let admin: Principal;

beforeAll(async () => {
  const newAnalyst = async (email: string): Promise<Principal> => {
    const user = await createUser(db(), { email, name: email, role: "analyst", passwordHash: null, creditAllowance: 100 });
    return { id: user.id, email: user.email, role: "analyst", ip: "127.0.0.1" };
  };
  alice = await newAnalyst("alice@example.com");
  bob = await newAnalyst("bob@example.com");
  const adminUser = await createUser(db(), { email: "root@example.com", name: "r", role: "admin", passwordHash: null, creditAllowance: 0 });
  admin = { id: adminUser.id, email: adminUser.email, role: "admin", ip: "10.0.0.1" };
});

const input = (credits: number, useForConsole = false) => ({ name: "k", credits, qpsLimit: 5, expiresAt: null, useForConsole });

describe("key management", () => {
  it("spends the owner's allowance and refuses more than is left, writing nothing", async () => {
    await issueKey(db(), SECRET, alice, input(60));
    expect((await getUser(db(), alice.id))?.creditAllowance).toBe(40);
    await expect(issueKey(db(), SECRET, alice, input(41))).rejects.toThrow(/allowance/);
    expect((await getUser(db(), alice.id))?.creditAllowance).toBe(40);
    expect(await visibleKeys(db(), alice)).toHaveLength(1);
  });

  it("hides one analyst's keys from another (not found), shows all to admins", async () => {
    const { key } = await issueKey(db(), SECRET, bob, input(10));
    expect(await visibleKey(db(), alice, key.id)).toBeNull();
    expect(await revokeVisibleKey(db(), alice, key.id)).toBeNull();
    expect(await rollVisibleKey(db(), SECRET, alice, key.id, "none")).toBeNull();
    expect(await chooseConsoleKey(db(), alice, key.id, undefined)).toBeNull();
    expect((await visibleKey(db(), bob, key.id))?.status).toBe("active");
    expect((await visibleKey(db(), admin, key.id))?.id).toBe(key.id);
    expect((await visibleKeys(db(), admin, "all")).length).toBeGreaterThanOrEqual(2);
  });

  it("keeps the console token sealed and follows rolls", async () => {
    const { key, token } = await issueKey(db(), SECRET, bob, input(5, true));
    const stored = await db().query<{ token_encrypted: string }>("SELECT token_encrypted FROM console_tokens WHERE key_id = $1", [key.id]);
    expect(stored[0]?.token_encrypted).not.toContain(token.slice(-20));
    expect(await consoleToken(db(), bob.id)).toEqual({ keyId: key.id, token });
    const rolled = await rollVisibleKey(db(), SECRET, bob, key.id, "1h");
    expect((await consoleToken(db(), bob.id))?.token).toBe(rolled?.token);
  });

  it("makes another key the console key only with its own token", async () => {
    const { key, token } = await issueKey(db(), SECRET, bob, input(1));
    await expect(chooseConsoleKey(db(), bob, key.id, undefined)).rejects.toThrow(/Paste/);
    await expect(chooseConsoleKey(db(), bob, key.id, `${token}x`)).rejects.toThrow(/does not belong/);
    expect((await chooseConsoleKey(db(), bob, key.id, token))?.id).toBe(key.id);
    expect((await consoleToken(db(), bob.id))?.keyId).toBe(key.id);
  });

  it("audits top-ups with the reason, actor and IP", async () => {
    const { key } = await issueKey(db(), SECRET, alice, input(1));
    const topped = await topUpAnyKey(db(), admin, key.id, 500, "quarterly budget");
    expect(topped).toMatchObject({ creditsRemaining: 501, creditsGranted: 501 });
    const [entry] = await listAudit(db(), { limit: 1 });
    expect(entry).toMatchObject({
      actorEmail: "root@example.com",
      action: "key.credits",
      targetId: key.id,
      ip: "10.0.0.1",
      details: { credits: 500, reason: "quarterly budget" },
    });
  });
});

describe("a refill set in the console", () => {
  const everyDay = (credits: number) => ({ credits, interval: "daily" as const, dayOfMonth: null, mode: "top_up_to" as const });
  const carol = async (creditAllowance: number): Promise<Principal> => {
    const user = await createUser(db(), { email: `carol-${crypto.randomUUID()}@example.com`, name: "c", role: "analyst", passwordHash: null, creditAllowance });
    return { id: user.id, email: user.email, role: "analyst", ip: "127.0.0.1" };
  };

  it("is refused at creation when it is more than the allowance holds after the key's credits, writing nothing", async () => {
    const analyst = await carol(1000);
    const refused = issueKey(db(), SECRET, analyst, { ...input(400), refill: { ...everyDay(1_000_000_000), interval: "monthly", mode: "increase_by" } });
    await expect(refused).rejects.toThrow(
      "Not enough credit allowance for a refill of 1,000,000,000 credits a month: your allowance holds 600. Ask an administrator for more.",
    );
    // 400 credits and a refill of 601: the allowance would hold 600 once the credits are taken.
    await expect(issueKey(db(), SECRET, analyst, { ...input(400), refill: everyDay(601) })).rejects.toThrow(/refill of 601 credits a day: your allowance holds 600\./);
    expect((await getUser(db(), analyst.id))?.creditAllowance).toBe(1000);
    expect(await visibleKeys(db(), analyst)).toEqual([]);
    const { key } = await issueKey(db(), SECRET, analyst, { ...input(400), refill: everyDay(600) });
    expect(key).toMatchObject({ refill: everyDay(600), refillPayerId: analyst.id, refillStopped: null });
    // The refill is not taken at creation: each period's refill takes what it adds.
    expect((await getUser(db(), analyst.id))?.creditAllowance).toBe(600);
  });

  it("is refused on a change when it is more than the allowance holds, leaving the key as it was", async () => {
    const analyst = await carol(0);
    const { key } = await issueKey(db(), SECRET, analyst, input(0));
    await expect(updateVisibleKeyPolicy(db(), analyst, key.id, { refill: everyDay(1_000_000_000), operations: ["followers"] })).rejects.toThrow(
      "Not enough credit allowance for a refill of 1,000,000,000 credits a day: your allowance holds 0. Ask an administrator for more.",
    );
    expect(await visibleKey(db(), analyst, key.id)).toMatchObject({ refill: null, refillPayerId: null, operations: null });
    // Removing a refill needs no allowance; an administrator's refill on the analyst's key is granted.
    expect(await updateVisibleKeyPolicy(db(), analyst, key.id, { refill: null })).toMatchObject({ refill: null });
    expect(await updateVisibleKeyPolicy(db(), admin, key.id, { refill: everyDay(1_000_000_000) })).toMatchObject({ refillPayerId: null });
    const audit = await listAudit(db(), { limit: 1 });
    expect(audit[0]).toMatchObject({ action: "key.policy", targetId: key.id, details: { refillPayerId: null } });
    // The analyst setting it again makes it theirs to pay, and is checked again.
    await expect(updateVisibleKeyPolicy(db(), analyst, key.id, { refill: everyDay(1_000_000_000) })).rejects.toThrow(/your allowance holds 0/);
    expect((await visibleKey(db(), analyst, key.id))?.refillPayerId).toBeNull();
  });
});

describe("bootstrap admin", () => {
  it("generates a random admin once, written 0600, and never a fixed password", async () => {
    const fresh = pgliteDatabase();
    const freshDb = await fresh.open();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-boot-"));
    try {
      const first = await bootstrapAdmin(freshDb, { dataDir });
      expect(first.kind).toBe("generated");
      if (first.kind !== "generated") return;
      expect(fs.statSync(first.file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(first.file, "utf8")).toContain(first.password);
      expect((await bootstrapAdmin(freshDb, { dataDir })).kind).toBe("existing");
      const configured = await bootstrapAdmin(freshDb, { dataDir, email: "ops@example.com", password: "a-long-password-1" });
      expect(configured.kind).toBe("configured");
    } finally {
      await freshDb.close();
      await fresh.cleanup();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("administrators", () => {
  it("grant credits without an allowance of their own", async () => {
    const { key } = await issueKey(db(), SECRET, admin, input(1000));
    expect(key.creditsRemaining).toBe(1000);
    expect((await getUser(db(), admin.id))?.creditAllowance).toBe(0);
  });
});
