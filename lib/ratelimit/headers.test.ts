import { parseList } from "structured-headers";
import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "./headers";

describe("rateLimitHeaders", () => {
  const decision = { allowed: true, limit: 10, remaining: 7, resetMs: 250 };

  it("writes RateLimit-Policy and RateLimit as Structured Field lists a real parser reads", () => {
    const headers = rateLimitHeaders(decision);
    expect(parseList(headers["RateLimit-Policy"])).toEqual([["per-key", new Map([["q", 10], ["w", 1]])]]);
    expect(parseList(headers.RateLimit)).toEqual([["per-key", new Map([["r", 7], ["t", 1]])]]);
  });

  it("keeps draft-06's three integers, agreeing with the structured fields", () => {
    expect(rateLimitHeaders(decision)).toMatchObject({ "RateLimit-Limit": "10", "RateLimit-Remaining": "7", "RateLimit-Reset": "1" });
  });

  it("rounds the reset up to whole seconds and never says 0", () => {
    expect(rateLimitHeaders({ ...decision, resetMs: 0 })["RateLimit-Reset"]).toBe("1");
    expect(rateLimitHeaders({ ...decision, resetMs: 1001 }).RateLimit).toBe('"per-key";r=7;t=2');
  });
});
