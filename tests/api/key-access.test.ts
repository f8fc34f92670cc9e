import { describe, expect, inject, it } from "vitest";
import { readKeyLedger, type ApiTarget, type IssuedKey } from "./harness";
import { call, contractMessages, costs, eventUrl, expectCredits, expectError, header, paths, type Answer, type OperationPath } from "./http";

/**
 * docs/decisions.md "Bulk, agents and keys": a key limited to some operations and some client addresses
 * answers 403 outside them, with the envelope and the exact message, charged nothing, one usage
 * record each; 401 → 403 → 429. The suite's servers run with TRUSTED_PROXY_HOPS=1 (a load
 * balancer in front): the client is the rightmost X-Forwarded-For entry, anything left of it is
 * the client's own writing. (TRUSTED_PROXY_HOPS=0, the default: tests/api/front-config.test.ts.)
 */
const targets = inject("apiTargets");

const OPERATION_NOT_ALLOWED = "apiKey is not allowed to call this operation";
const ADDRESS_NOT_ALLOWED = "apiKey is not allowed from this address";

const QUERIES: Record<OperationPath, Record<string, string>> = {
  [paths.followers]: { userid: "2000000002" },
  [paths.publications]: { urn: "urn:li:member:3000000003" },
  [paths.eventById]: { event_id: "1000000000000001" },
  [paths.eventByUrl]: { url: eventUrl("1000000000000001") },
};

const from = (address: string | null): Record<string, string> => (address === null ? {} : { "X-Forwarded-For": address });

const lookup = (target: ApiTarget, key: IssuedKey, path: OperationPath, address: string | null, forwardedFor?: string) =>
  call(target, path, { auth: key, query: QUERIES[path], headers: from(forwardedFor ?? address) });

const expectForbidden = (answer: Answer, message: string, path: OperationPath) => {
  expectError(answer, 403, message);
  expectCredits(answer, { cost: costs[path], charged: 0 });
  // Refused before the rate limit: it is not counted, so it reports none.
  expect(header(answer, "ratelimit-limit")).toBeNull();
};

describe.each(targets)("$kind server", (target: ApiTarget) => {
  describe("a key limited to some operations", () => {
    const key = target.keys.accessScoped;

    it("answers 403 for every other operation, charging nothing and not counting against its 1 request/s", async () => {
      for (const path of [paths.publications, paths.eventById, paths.eventByUrl]) {
        expectForbidden(await lookup(target, key, path, null), OPERATION_NOT_ALLOWED, path);
      }
      const allowed = await lookup(target, key, paths.followers, null);
      expect(allowed.status).toBe(200);
      expectCredits(allowed, { cost: costs[paths.followers], charged: costs[paths.followers], remaining: 1000 - costs[paths.followers] });
    });

    it("still reads its account", async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const answer = await call(target, "/v1/account", { auth: key });
      expect(answer.status).toBe(200);
    });

    it("answers 401 before 403 for a bad token", async () => {
      expectError(await call(target, paths.publications, { auth: { authorization: "Bearer nope" }, query: QUERIES[paths.publications] }), 401, contractMessages.keyInvalid);
    });
  });

  describe("a key limited to some addresses", () => {
    const key = target.keys.accessAllowlisted;
    const allowed = [
      "203.0.113.0", // the range's first address
      "203.0.113.255", // and its last
      "198.51.100.7", // a single address
      "::ffff:203.0.113.9", // IPv4-mapped IPv6: the IPv4 client it is
      "2001:db8::", // the IPv6 range's first address
      "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", // and its last
    ];
    const refused = [
      "203.0.112.255", // one below the range
      "203.0.114.0", // one above it
      "198.51.100.8", // next to the single address
      "::ffff:198.51.100.8", // mapped, outside
      "2001:db9::", // one above the IPv6 range
      "::1",
    ];

    it("answers from every address inside, at the edges of its ranges, IPv6 and IPv4-mapped included", async () => {
      for (const address of allowed) expect((await lookup(target, key, paths.followers, address)).status, address).toBe(200);
    });

    it("answers 403 from every address outside, charging nothing", async () => {
      for (const address of refused) expectForbidden(await lookup(target, key, paths.followers, address), ADDRESS_NOT_ALLOWED, paths.followers);
    });

    it("trusts only the entry its proxy appended, not what the client wrote before it", async () => {
      // The client claims an allowed address; the proxy appended the real one.
      expectForbidden(await lookup(target, key, paths.followers, null, "203.0.113.5, 192.0.2.1"), ADDRESS_NOT_ALLOWED, paths.followers);
      expect((await lookup(target, key, paths.followers, null, "192.0.2.1, 203.0.113.5")).status).toBe(200);
    });

    it("applies to its account too", async () => {
      expectError(await call(target, "/v1/account", { auth: key, headers: from("192.0.2.1") }), 403, ADDRESS_NOT_ALLOWED);
      expect((await call(target, "/v1/account", { auth: key, headers: from("2001:db8::1") })).status).toBe(200);
    });

    it("was charged only for what it was answered, with one usage record per lookup", async () => {
      const ledger = await readKeyLedger(target, key.id);
      const answered = allowed.length + 1;
      expect(ledger.creditsRemaining).toBe(1000 - answered * costs[paths.followers]);
      const statuses = ledger.usage.map((row) => row.status).sort();
      expect(statuses).toEqual([...Array<number>(answered).fill(200), ...Array<number>(refused.length + 1).fill(403)]);
      expect(ledger.usage.filter((row) => row.status === 403).every((row) => row.credits_charged === 0)).toBe(true);
    });
  });

  describe("a key limited to one operation and one range", () => {
    const key = target.keys.accessBoth;
    const inside = "2001:db8::5";
    const outside = "203.0.113.1";

    it("answers only that operation from that range; elsewhere the address is refused first", async () => {
      expect((await lookup(target, key, paths.publications, inside)).status).toBe(200);
      expectForbidden(await lookup(target, key, paths.followers, inside), OPERATION_NOT_ALLOWED, paths.followers);
      expectForbidden(await lookup(target, key, paths.publications, outside), ADDRESS_NOT_ALLOWED, paths.publications);
      expectForbidden(await lookup(target, key, paths.followers, outside), ADDRESS_NOT_ALLOWED, paths.followers);
      expectError(await call(target, "/v1/account", { auth: key, headers: from(outside) }), 403, ADDRESS_NOT_ALLOWED);
      expect((await call(target, "/v1/account", { auth: key, headers: from(inside) })).status).toBe(200);
    });
  });
});
