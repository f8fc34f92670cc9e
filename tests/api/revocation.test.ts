import { describe, expect, inject, it } from "vitest";
import { delay, revokeKeyWithCli, withServerStopped, type ApiTarget } from "./harness";
import { call, contractMessages as messages, expectError, expectNoKeyHeaders, paths } from "./http";

/**
 * docs/decisions.md "Keys": a revoked key fails on the next request, on every instance. With the
 * embedded database the CLI needs the server stopped; with PostgreSQL it revokes while the server
 * runs and the server's key cache (1 s) must let go within 1 s.
 */
const targets = inject("apiTargets");

const REVOCATION_DEADLINE_MS = 1000;
const PROBE_INTERVAL_MS = 50;
const PROBE_WINDOW_MS = 1500;

describe.each(targets)("$kind server", (target: ApiTarget) => {
  const key = target.keys.revocation;
  const lookup = () => call(target, paths.publications, { auth: key, query: { urn: "urn:li:member:3000000003" } });

  describe("a key revoked with `keys revoke`", () => {
    it("works before it is revoked", async () => {
      expect((await lookup()).status).toBe(200);
    });

    if (target.kind === "pglite") {
      it("answers 401 apiKey is invalid on the next request after the restart", async () => {
        await withServerStopped(target, () => revokeKeyWithCli(target, key.id));
        const answer = await lookup();
        expectError(answer, 401, messages.keyInvalid);
        expectNoKeyHeaders(answer);
      });
    } else {
      it("answers 401 apiKey is invalid to every request sent 1 s or more after the revocation", async () => {
        // Load the key into the server's cache right before the revocation: the worst case.
        expect((await lookup()).status).toBe(200);
        await revokeKeyWithCli(target, key.id);
        const revokedAt = Date.now();
        // Requests on a fixed schedule, not one after the other: a slow answer must not delay the next probe.
        const probes = await Promise.all(
          Array.from({ length: Math.floor(PROBE_WINDOW_MS / PROBE_INTERVAL_MS) + 1 }, async (_, index) => {
            await delay(Math.max(0, revokedAt + index * PROBE_INTERVAL_MS - Date.now()));
            const sentAfterMs = Date.now() - revokedAt;
            return { sentAfterMs, answer: await lookup() };
          }),
        );
        const late = probes.filter((probe) => probe.sentAfterMs >= REVOCATION_DEADLINE_MS);
        expect(late.length).toBeGreaterThan(0);
        expect(
          late.filter((probe) => probe.answer.status !== 401).map((probe) => `${probe.sentAfterMs} ms: ${probe.answer.status}`),
          "requests sent ≥ 1 s after `keys revoke` that were not refused",
        ).toEqual([]);
        for (const probe of probes) {
          if (probe.answer.status === 401) expectError(probe.answer, 401, messages.keyInvalid);
          else expect(probe.answer.status, `${probe.sentAfterMs} ms after the revocation`).toBe(200);
        }
      });
    }

    it("keeps answering 401 afterwards", async () => {
      const answers = await Promise.all(Array.from({ length: 3 }, lookup));
      for (const answer of answers) expectError(answer, 401, messages.keyInvalid);
    });
  });
});
