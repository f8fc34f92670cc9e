import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { createCursorCodec } from "./cursor";
import { selectConnector } from "./select";
import { createStoreConnector } from "./store";
import { createSuppressionList } from "./suppression";
import { suppressedSubjects } from "@/lib/privacy/suppressions";

const cursors = createCursorCodec(crypto.randomBytes(32));
const db = () => Promise.reject(new Error("no database in this test"));

describe("choosing the connector (DATA_SOURCE)", () => {
  it("defaults to the store, shared provider key, 10 s timeout, TTLs of 24 h / 1 h / 24 h and full-price hits", () => {
    const config = parseEnv({});
    expect(config).toMatchObject({
      DATA_SOURCE: "store",
      UPSTREAM_KEY_MODE: "shared",
      UPSTREAM_TIMEOUT_MS: 10_000,
      CACHE_TTL_EVENTS_S: 86_400,
      CACHE_TTL_FOLLOWERS_S: 3600,
      CACHE_TTL_PUBLICATIONS_S: 86_400,
      CACHE_HIT_CREDITS: "full",
    });
    expect(config.UPSTREAM_BASE_URL).toBeUndefined();
    expect(config.UPSTREAM_API_KEY).toBeUndefined();
  });

  it("names the upstream variable at fault", () => {
    expect(() => parseEnv({ DATA_SOURCE: "cloud" })).toThrow(/DATA_SOURCE/);
    expect(() => parseEnv({ UPSTREAM_BASE_URL: "ftp://provider" })).toThrow(/UPSTREAM_BASE_URL/);
    expect(() => parseEnv({ UPSTREAM_KEY_MODE: "mine" })).toThrow(/UPSTREAM_KEY_MODE/);
    expect(() => parseEnv({ CACHE_HIT_CREDITS: "half" })).toThrow(/CACHE_HIT_CREDITS/);
    expect(() => parseEnv({ UPSTREAM_TIMEOUT_MS: "5" })).toThrow(/UPSTREAM_TIMEOUT_MS/);
  });

  it("answers from the store alone with DATA_SOURCE=store, and goes upstream otherwise", () => {
    const store = createStoreConnector({ db, cursors, cacheTtlMs: 0 });
    const sealKey = crypto.randomBytes(32);
    const suppressions = createSuppressionList({ db, read: suppressedSubjects });
    const storeOnly = selectConnector({ settings: parseEnv({}), db, cursors, store, sealKey, suppressions });
    // The store itself, behind the suppression guard every connector gets.
    expect(storeOnly.name).toBe("store");
    expect(storeOnly.upstream).toBeUndefined();

    for (const source of ["upstream", "store-then-upstream"] as const) {
      const upstream = selectConnector({ settings: parseEnv({ DATA_SOURCE: source }), db, cursors, store, sealKey, suppressions });
      expect(upstream.name).toBe(source);
      expect(upstream.upstream?.status()).toMatchObject({ status: "idle", breaker: { state: "closed" } });
    }
  });
});
