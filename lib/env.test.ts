import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

describe("environment", () => {
  it("has working defaults", () => {
    const config = parseEnv({});
    expect(config.PORT).toBe(3000);
    expect(config.EVENTSITE_HOSTS).toContain("events.demo.test");
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.publicUrl).toBe("http://localhost:3000");
  });

  it("names the variable at fault", () => {
    expect(() => parseEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseEnv({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => parseEnv({ AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET/);
    expect(() => parseEnv({ EVENTSITE_HOSTS: "bad host!" })).toThrow(/EVENTSITE_HOSTS/);
  });

  it("reads host lists and treats empty optional URLs as unset", () => {
    const config = parseEnv({ EVENTSITE_HOSTS: " A.example, b.example ", REDIS_URL: "" });
    expect(config.EVENTSITE_HOSTS).toEqual(["a.example", "b.example"]);
    expect(config.REDIS_URL).toBeUndefined();
  });

  it("leaves a batch's lookups in flight to the runner unless BATCH_CONCURRENCY sets a ceiling", () => {
    expect(parseEnv({}).BATCH_CONCURRENCY).toBeUndefined();
    expect(parseEnv({ BATCH_CONCURRENCY: "" }).BATCH_CONCURRENCY).toBeUndefined();
    expect(parseEnv({ BATCH_CONCURRENCY: " 32 " }).BATCH_CONCURRENCY).toBe(32);
    expect(parseEnv({}).UPSTREAM_MAX_CONCURRENCY).toBe(256);
    expect(() => parseEnv({ BATCH_CONCURRENCY: "0" })).toThrow(/BATCH_CONCURRENCY/);
    expect(() => parseEnv({ BATCH_CONCURRENCY: "many" })).toThrow(/BATCH_CONCURRENCY/);
  });

  it("listens on loopback, trusts no proxy and opens /v1 to no other origin by default", () => {
    const config = parseEnv({});
    expect(config.HOST).toBe("localhost");
    expect(config.TRUSTED_PROXY_HOPS).toBe(0);
    expect(config.CORS_ALLOWED_ORIGINS).toEqual([]);
  });

  it("reads HOST, TRUSTED_PROXY_HOPS and CORS_ALLOWED_ORIGINS, refusing what they cannot mean", () => {
    const config = parseEnv({ HOST: "0.0.0.0", TRUSTED_PROXY_HOPS: "1", CORS_ALLOWED_ORIGINS: " https://app.example.com, http://localhost:5173 " });
    expect(config.HOST).toBe("0.0.0.0");
    expect(config.TRUSTED_PROXY_HOPS).toBe(1);
    expect(config.CORS_ALLOWED_ORIGINS).toEqual(["https://app.example.com", "http://localhost:5173"]);
    expect(parseEnv({ HOST: "::" }).HOST).toBe("::");
    expect(() => parseEnv({ HOST: "bad host" })).toThrow(/HOST/);
    expect(() => parseEnv({ TRUSTED_PROXY_HOPS: "-1" })).toThrow(/TRUSTED_PROXY_HOPS/);
    for (const origins of ["*", "https://app.example.com/", "https://app.example.com/path", "app.example.com", "ftp://x.example"]) {
      expect(() => parseEnv({ CORS_ALLOWED_ORIGINS: origins }), origins).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });
});
