import { describe, expect, inject, it } from "vitest";
import { delay, type ApiTarget } from "./harness";
import { call, expectNoKeyHeaders, expectRateLimitHeaders, header, paths, rateLimitItem, type Answer } from "./http";
import { PROFILE_0 } from "@/tests/support/demo-subjects";

/**
 * Rate-limit headers in both dialects (decisions: the current IETF draft's `RateLimit-Policy` and
 * `RateLimit` Structured Fields beside draft-06's `RateLimit-Limit/-Remaining/-Reset`, kept for
 * existing clients), parsed with a real Structured Field parser, on lookups and on /v1/account.
 */
const targets = inject("apiTargets");


const remainingOf = (answer: Answer): number => Number(rateLimitItem(answer, "ratelimit").params.r);

describe.each(targets)("$kind server", (target: ApiTarget) => {
  const key = target.keys.rateHeaders;

  describe("RateLimit-Policy and RateLimit", () => {
    it("name the per-key policy (q requests per w=1 second) and count it down within a window, agreeing with draft-06's headers", async () => {
      const answers = await Promise.all(
        Array.from({ length: key.qps + 2 }, () => call(target, paths.publications, { auth: key, query: { urn: PROFILE_0 } })),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429, 429]);
      for (const answer of answers) expectRateLimitHeaders(answer, key.qps);
      const allowed = answers.filter((answer) => answer.status === 200);
      expect(allowed.map(remainingOf).sort()).toEqual([0, 1, 2]);
      for (const refused of answers.filter((answer) => answer.status === 429)) {
        expect(remainingOf(refused)).toBe(0);
        // A client reading either dialect waits the same time.
        expect(header(refused, "retry-after")).toBe(String(rateLimitItem(refused, "ratelimit").params.t));
      }
      await delay(1100);
    });

    it("are sent by GET /v1/account too, which counts against the same limit", async () => {
      const account = await call(target, "/v1/account", { auth: key });
      expect(account.status).toBe(200);
      expectRateLimitHeaders(account, key.qps);
      expect(remainingOf(account)).toBe(key.qps - 1);
      const lookup = await call(target, paths.publications, { auth: key, query: { urn: PROFILE_0 } });
      expect(remainingOf(lookup)).toBe(key.qps - 2);
      await delay(1100);
    });

    it("are not sent when no key is recognised (401)", async () => {
      expectNoKeyHeaders(await call(target, paths.publications, { auth: null, query: { urn: PROFILE_0 } }));
      expectNoKeyHeaders(await call(target, "/v1/account", { auth: { authorization: "Bearer not-a-key" } }));
    });
  });
});
