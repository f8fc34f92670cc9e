import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "@/lib/audit/log";
import { signInHint } from "@/lib/cli/sign-in-hint";
import type { Db } from "@/lib/db/client";
import { consoleToken } from "@/lib/keys/manage";
import { listKeys } from "@/lib/keys/repository";
import { bootstrapAdmin, type BootstrapResult } from "@/lib/users/bootstrap";
import { pgliteDatabase } from "@/tests/support/databases";
import { DEMO_KEY, grantDemoKey, seedIfEmpty } from "./seed";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";
const PUBLIC_URL = "http://127.0.0.1:3000";

/** One fresh database and data dir, taken through what `npm start` does on a first start. */
const database = pgliteDatabase();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-demo-key-"));
let db: Db;
let seeded: boolean;
let admin: BootstrapResult;

beforeAll(async () => {
  db = await database.open();
  seeded = await seedIfEmpty(db, PUBLIC_URL);
  admin = await bootstrapAdmin(db, { dataDir });
}, 120_000);

afterAll(async () => {
  await db.close();
  await database.cleanup();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("grantDemoKey: the first administrator's console key on a first demo start", () => {
  it.each(["upstream", "store-then-upstream"] as const)("gives nothing with DATA_SOURCE=%s, where credits stand for money", async (dataSource) => {
    expect({ seeded, kind: admin.kind }).toEqual({ seeded: true, kind: "generated" });
    expect(await grantDemoKey(db, SECRET, { seeded, dataSource, admin })).toBeNull();
    expect(await listKeys(db)).toEqual([]);
  });

  it("gives the new admin a console key with 1,000 demo credits, labelled as a demo key and audited", async () => {
    const key = await grantDemoKey(db, SECRET, { seeded, dataSource: "store", admin });
    if (!key || admin.kind === "existing") throw new Error("expected a demo key for a generated admin");
    expect(key).toMatchObject({ name: DEMO_KEY.name, ownerId: admin.userId, creditsRemaining: 1000, creditsGranted: 1000, status: "active" });
    expect(key.name).toMatch(/demo/i);
    expect((await consoleToken(db, admin.userId))?.keyId).toBe(key.id);
    const audit = (await listAudit(db, { limit: 10 })).filter((entry) => entry.targetId === key.id);
    expect(audit.map((entry) => [entry.action, entry.actorEmail])).toEqual([["key.create", admin.email]]);
  });

  it("gives nothing on a later start: the store was not empty and the admin already existed", async () => {
    const again = { seeded: await seedIfEmpty(db, PUBLIC_URL), admin: await bootstrapAdmin(db, { dataDir }) };
    expect(again).toMatchObject({ seeded: false, admin: { kind: "existing" } });
    expect(await grantDemoKey(db, SECRET, { ...again, dataSource: "store" })).toBeNull();
    expect(await grantDemoKey(db, SECRET, { seeded: true, dataSource: "store", admin: again.admin })).toBeNull();
    expect(await listKeys(db)).toHaveLength(1);
  });

  it("tells a later start's banner the real path of the first admin's password file, not a placeholder", async () => {
    const file = path.join(dataDir, "initial-admin.txt");
    const later = await bootstrapAdmin(db, { dataDir });
    expect(later).toEqual({ kind: "existing", file });
    expect(signInHint(later)).toContain(`is in ${file})`);
    fs.renameSync(file, `${file}.moved`);
    expect(signInHint(await bootstrapAdmin(db, { dataDir }))).toBe("  Sign in with your account.");
    fs.renameSync(`${file}.moved`, file);
  });

  it("gives an admin configured with ADMIN_EMAIL/ADMIN_PASSWORD the key on a first start", async () => {
    const configured = await bootstrapAdmin(db, { dataDir, email: "ops@example.com", password: "a-long-password-1" });
    if (configured.kind !== "configured") throw new Error(`expected a configured admin, got ${configured.kind}`);
    const key = await grantDemoKey(db, SECRET, { seeded: true, dataSource: "store", admin: configured });
    expect(key?.ownerId).toBe(configured.userId);
    expect((await consoleToken(db, configured.userId))?.keyId).toBe(key?.id);
  });
});
