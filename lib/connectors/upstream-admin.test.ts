import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventDetailsId as eventById } from "@/lib/operations/event-details-id";
import { runLookup } from "@/lib/api/pipeline";
import { DomainError } from "@/lib/errors";
import { closeDb, getDb, type Db } from "@/lib/database";
import { generateDemoData } from "@/lib/demo/generate";
import { importUpload } from "@/lib/import/upload";
import { createKey } from "@/lib/keys/repository";
import { authSecret } from "@/lib/security/secrets";
import { services } from "@/lib/services";
import { createUser } from "@/lib/users/repository";
import { startFakeProvider, type FakeProvider } from "@/tests/support/fake-provider";
import {
  providerKeyState,
  removeOwnProviderKey,
  setOwnProviderKey,
  updateUpstreamSettings,
  upstreamAdminView,
  baseUrlWarning,
} from "./upstream-admin";

/**
 * The console's use cases behind /api/me/provider-key, /api/admin/upstream and
 * /api/admin/import, on the process-wide services configured through the environment
 * (DATA_SOURCE=upstream, per-user keys, the fake provider's URL).
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-upstream-admin-"));
const demo = generateDemoData("http://localhost:3000");
const saved: Record<string, string | undefined> = {};
let provider: FakeProvider;
let db: Db;

const setEnv = (values: Record<string, string>) => {
  for (const [name, value] of Object.entries(values)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
};

const expectDomainError = async (work: Promise<unknown>, code: string) => {
  const error: unknown = await work.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect(error).toMatchObject({ code });
};

const record = demo.events[0];
// The process-wide connector, as the routes pass it.
const deps = { connector: async () => (await services()).connector };

beforeAll(async () => {
  provider = await startFakeProvider();
  if (record) provider.events.set(record.event_id, record);
  setEnv({
    DATA_DIR: dataDir,
    AUTH_SECRET: "upstream-admin-test-secret-0123456789-abcdef",
    DATA_SOURCE: "upstream",
    UPSTREAM_KEY_MODE: "per-user",
    UPSTREAM_BASE_URL: provider.url,
    UPSTREAM_TIMEOUT_MS: "2000",
  });
  db = await getDb();
}, 120_000);

afterAll(async () => {
  await closeDb();
  await provider?.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("a user's own provider key (/api/me/provider-key)", () => {
  it("is checked with the provider, stored, used for that user's lookups, and deleted", async () => {
    if (!record) throw new Error("no demo event");
    const user = await createUser(db, { email: `jo-${crypto.randomUUID()}@example.test`, name: "Jo", role: "analyst", passwordHash: null, creditAllowance: 0 });
    const { token } = await createKey(db, authSecret(), { name: "jo", ownerId: user.id, credits: 100, qpsLimit: 100, expiresAt: null });
    const lookup = async () =>
      runLookup(eventById, { authorization: `Bearer ${token}`, query: new URLSearchParams({ event_id: record.event_id }), clientAddress: "127.0.0.1" }, await services());

    expect(await providerKeyState(db, user.id)).toMatchObject({ keyMode: "per-user", required: true, configured: false, hint: null });
    expect((await lookup()).status).toBe(500);
    expect(provider.calls).toHaveLength(0);

    await expectDomainError(setOwnProviderKey(db, user.id, "not-a-provider-key", deps), "provider_key_rejected");
    provider.keys.set("jo-provider-key-12345", 50);
    const state = await setOwnProviderKey(db, user.id, "jo-provider-key-12345", deps);
    expect(state).toMatchObject({ configured: true, hint: "…2345", lastError: null });
    expect(JSON.stringify(state)).not.toContain("jo-provider-key-12345");

    const answer = await lookup();
    expect(answer.status).toBe(200);
    expect(provider.calls.at(-1)?.authorization).toBe("Bearer jo-provider-key-12345");

    expect(await removeOwnProviderKey(db, user.id, deps)).toMatchObject({ configured: false });
    await db.query("DELETE FROM upstream_pages");
    expect((await lookup()).status).toBe(500);
  });
});

describe("the admin's upstream settings (/api/admin/upstream)", () => {
  it("shows what the environment sets, refuses to override it, and reports the connection's health", async () => {
    const view = await upstreamAdminView(db, deps);
    expect(view).toMatchObject({
      dataSource: "upstream",
      keyMode: "per-user",
      baseUrl: { value: provider.url, source: "environment" },
      sharedKey: { hint: null, source: null },
      breaker: { state: "closed" },
      cache: { ttlS: { events: 86_400, followers: 3600, publications: 86_400 }, hitCredits: "full" },
      banner: null,
    });
    await expectDomainError(updateUpstreamSettings(db, "admin", { baseUrl: "https://other.example/" }, deps), "set_by_environment");
  });

  it("warns when the base URL points inside (the test provider listens on 127.0.0.1), not when it is public", async () => {
    expect((await upstreamAdminView(db, deps)).baseUrlWarning).toMatch(/points inside this server's own networks/);
    expect(await baseUrlWarning("http://[::ffff:10.0.0.1]:8080/")).toMatch(/points inside/);
    expect(await baseUrlWarning("https://93.184.215.14/v1")).toBeNull();
    expect(await baseUrlWarning(null)).toBeNull();
  });

  it("stores a shared key checked with the provider, shown masked", async () => {
    provider.keys.set("shared-admin-key-7777", 10);
    const admin = await createUser(db, { email: `admin-${crypto.randomUUID()}@example.test`, name: "A", role: "admin", passwordHash: null, creditAllowance: 0 });
    await expectDomainError(updateUpstreamSettings(db, admin.id, { apiKey: "unknown-shared-key" }, deps), "provider_key_rejected");
    const view = await updateUpstreamSettings(db, admin.id, { apiKey: "shared-admin-key-7777" }, deps);
    expect(view.sharedKey).toEqual({ hint: "…7777", source: "settings" });
    expect(JSON.stringify(view)).not.toContain("shared-admin-key-7777");
    expect((await updateUpstreamSettings(db, admin.id, { apiKey: null }, deps)).sharedKey).toEqual({ hint: null, source: null });
  });
});

describe("an upload (/api/admin/import)", () => {
  const body = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        for (let start = 0; start < bytes.length; start += 100) controller.enqueue(bytes.subarray(start, start + 100));
        controller.close();
      },
    });

  it("imports a streamed upload with the CLI's checks, and reports bad lines", async () => {
    const events = demo.events.slice(1, 4).map((event) => JSON.stringify(event));
    const text = [events[0], "{oops", events[1], JSON.stringify({ urn: 1 }), events[2]].join("\n");
    const strict = await importUpload(db, body(text), { name: "upload.ndjson", strict: true });
    expect(strict).toMatchObject({ aborted: true, written: 0, skipped: 2 });
    const report = await importUpload(db, body(text), { name: "upload.ndjson", strict: false });
    expect(report).toMatchObject({ imported: 3, written: 3, unchanged: 0, skipped: 2, aborted: false });
    expect(report.errors.map((error) => error.line)).toEqual([2, 4]);
    expect(await importUpload(db, body(text), { name: "upload.ndjson", strict: false })).toMatchObject({ written: 0, unchanged: 3 });
  });
});
