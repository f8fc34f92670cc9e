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
});
