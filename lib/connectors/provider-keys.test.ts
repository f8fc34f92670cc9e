import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createUser } from "@/lib/users/repository";
import { startFakeProvider, type FakeProvider } from "@/tests/support/fake-provider";
import { pgliteDatabase } from "@/tests/support/databases";
import {
  deleteProviderKey,
  getProviderKeyView,
  loadProviderKey,
  loadUpstreamSettings,
  providerKeyHint,
  saveProviderKey,
  saveUpstreamSettings,
} from "./provider-keys";
import { checkProviderKey, NoProviderKeyError, UpstreamNotConfiguredError } from "./upstream-client";
import { createProviderConfig } from "./upstream-config";

const database = pgliteDatabase();
const sealKey = crypto.randomBytes(32);
let db: Db;
let provider: FakeProvider;

const user = (name: string) =>
  createUser(db, { email: `${name}-${crypto.randomUUID()}@example.test`, name, role: "analyst", passwordHash: null, creditAllowance: 0 });

beforeAll(async () => {
  db = await database.open();
  provider = await startFakeProvider();
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await db?.close();
  await database.cleanup();
});

describe("per-user provider keys", () => {
  it("stores a key sealed, shows only a hint, and gives it back for upstream calls", async () => {
    const owner = await user("erin");
    const key = "erin-provider-key-0123456789";
    const view = await saveProviderKey(db, sealKey, owner.id, key);
    expect(view.hint).toBe("…6789");
    const rows = await db.query<{ key_encrypted: string }>("SELECT key_encrypted FROM provider_keys WHERE user_id = $1", [owner.id]);
    expect(rows[0]?.key_encrypted).not.toContain(key);
    expect(rows[0]?.key_encrypted).toMatch(/^v1\./);
    expect(await loadProviderKey(db, sealKey, owner.id)).toBe(key);
    expect(await getProviderKeyView(db, owner.id)).toMatchObject({ hint: "…6789", lastError: null });
  });

  it("replaces a key, and deletes it", async () => {
    const owner = await user("frank");
    await saveProviderKey(db, sealKey, owner.id, "frank-first-key-aaaa");
    await saveProviderKey(db, sealKey, owner.id, "frank-second-key-bbbb");
    expect(await loadProviderKey(db, sealKey, owner.id)).toBe("frank-second-key-bbbb");
    expect(await deleteProviderKey(db, owner.id)).toBe(true);
    expect(await loadProviderKey(db, sealKey, owner.id)).toBeNull();
    expect(await deleteProviderKey(db, owner.id)).toBe(false);
  });

  it("binds a sealed key to its owner: copied to another user it does not open", async () => {
    const [owner, other] = [await user("gina"), await user("hank")];
    await saveProviderKey(db, sealKey, owner.id, "gina-provider-key-cccc");
    await saveProviderKey(db, sealKey, other.id, "hank-provider-key-dddd");
    await db.query(
      "UPDATE provider_keys SET key_encrypted = (SELECT key_encrypted FROM provider_keys WHERE user_id = $1) WHERE user_id = $2",
      [owner.id, other.id],
    );
    await expect(loadProviderKey(db, sealKey, other.id)).rejects.toThrow();
  });

  it("masks short keys completely", () => {
    expect(providerKeyHint("short")).toBe("…");
    expect(providerKeyHint("a-long-enough-key")).toBe("…-key");
  });
});

describe("provider configuration", () => {
  it("prefers the environment over the admin settings, and keeps the settings' key sealed", async () => {
    await saveUpstreamSettings(db, sealKey, { baseUrl: "https://settings.example/", apiKey: "settings-shared-key-1" }, null);
    const stored = await db.query<{ name: string; value: string; encrypted: boolean }>("SELECT name, value, encrypted FROM settings ORDER BY name");
    expect(stored.find((row) => row.name === "upstream.api_key")).toMatchObject({ encrypted: true });
    expect(JSON.stringify(stored)).not.toContain("settings-shared-key-1");
    expect(await loadUpstreamSettings(db, sealKey)).toMatchObject({ baseUrl: "https://settings.example/", apiKey: "settings-shared-key-1" });

    const fromSettings = createProviderConfig({ db: async () => db, sealKey, keyMode: "shared", environment: {} });
    expect(await fromSettings.credentialsFor(null)).toEqual({
      baseUrl: "https://settings.example/",
      apiKey: "settings-shared-key-1",
      owner: { kind: "shared" },
    });
    expect(await fromSettings.describe()).toEqual({
      keyMode: "shared",
      baseUrl: { value: "https://settings.example/", source: "settings" },
      sharedKey: { hint: "…ey-1", source: "settings" },
    });

    const fromEnvironment = createProviderConfig({
      db: async () => db,
      sealKey,
      keyMode: "shared",
      environment: { baseUrl: "https://env.example/", apiKey: "environment-key-0001" },
    });
    expect(await fromEnvironment.credentialsFor(null)).toMatchObject({ baseUrl: "https://env.example/", apiKey: "environment-key-0001" });
    expect((await fromEnvironment.describe()).sharedKey).toEqual({ hint: "…0001", source: "environment" });

    await saveUpstreamSettings(db, sealKey, { baseUrl: null, apiKey: null }, null);
    fromSettings.invalidate();
    await expect(fromSettings.credentialsFor(null)).rejects.toThrow(UpstreamNotConfiguredError);
  });

  it("per-user mode: the owner's key, or NoProviderKeyError", async () => {
    const owner = await user("ivy");
    const config = createProviderConfig({ db: async () => db, sealKey, keyMode: "per-user", environment: { baseUrl: "https://env.example/" } });
    await expect(config.credentialsFor(owner.id)).rejects.toThrow(NoProviderKeyError);
    await expect(config.credentialsFor(null)).rejects.toThrow(/no owner/);
    await saveProviderKey(db, sealKey, owner.id, "ivy-provider-key-eeee");
    config.invalidate(owner.id);
    expect(await config.credentialsFor(owner.id)).toEqual({
      baseUrl: "https://env.example/",
      apiKey: "ivy-provider-key-eeee",
      owner: { kind: "user", userId: owner.id },
    });
  });
});

describe("checking a provider key", () => {
  it("accepts a good key with a lookup that costs it nothing", async () => {
    provider.keys.set("good-provider-key-1", 10);
    expect(await checkProviderKey({ timeoutMs: 1000 }, provider.url, "good-provider-key-1")).toEqual({ ok: true });
    expect(provider.keys.get("good-provider-key-1")).toBe(10);
    expect(provider.calls.at(-1)).toMatchObject({ path: "/v1/jobsite/get_user_publications", authorization: "Bearer good-provider-key-1" });
  });

  it("refuses an unknown key and an exhausted one, and says when the provider cannot be reached", async () => {
    provider.keys.set("empty-provider-key-1", 0);
    expect(await checkProviderKey({ timeoutMs: 1000 }, provider.url, "unknown-key-123")).toMatchObject({ ok: false, reason: "rejected" });
    expect(await checkProviderKey({ timeoutMs: 1000 }, provider.url, "empty-provider-key-1")).toMatchObject({ ok: false, reason: "exhausted" });
    expect(await checkProviderKey({ timeoutMs: 1000 }, "http://127.0.0.1:9/", "whatever-key-1")).toMatchObject({ ok: false, reason: "unreachable" });
  });
});
