import { describe, expect, inject, it } from "vitest";
import { readKeyLedger, type ApiTarget } from "./harness";
import {
  call,
  contractMessages as messages,
  expectCredits,
  expectEnvelope,
  expectError,
  paths,
  remainingCredits,
  type Answer,
} from "./http";

/**
 * docs/decisions.md "Credits": reservation is atomic — N concurrent requests against a key with
 * credits for k of them yield exactly k successes and N−k 402s, remaining credits never go below
 * 0, and every request is counted in the usage records written with its charge.
 */
const targets = inject("apiTargets");

const ACCOUNT = "/v1/account";
const REQUESTS = 50;
const FOLLOWERS_COST = 2;

describe.each(targets)("$kind server", (target: ApiTarget) => {
  describe("GET /v1/pinsite/followers, 50 at once against credits for 20", () => {
    const key = target.keys.concurrency;
    const affordable = key.credits / FOLLOWERS_COST;

    it("answers exactly 20 × 200 and 30 × 402, and leaves 0 credits with usage records counting 50 requests", async () => {
      expect(affordable).toBe(20);
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, () => call(target, paths.followers, { auth: key, query: { userid: "2000000002" } })),
      );

      const succeeded = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status === 402);
      expect({ succeeded: succeeded.length, refused: refused.length }).toEqual({ succeeded: 20, refused: 30 });
      for (const answer of succeeded) {
        expect(expectEnvelope(answer).code).toBe(0);
        expectCredits(answer, { cost: FOLLOWERS_COST, charged: FOLLOWERS_COST });
      }
      for (const answer of refused) {
        expectError(answer, 402, messages.quota);
        expectCredits(answer, { cost: FOLLOWERS_COST, charged: 0 });
      }
      // Every reported balance is a distinct step of 40 → 0 for successes, never below 0.
      const reported = answers.map(remainingCredits);
      expect(Math.min(...reported)).toBeGreaterThanOrEqual(0);
      expect(succeeded.map(remainingCredits).sort((left, right) => left - right)).toEqual(
        Array.from({ length: 20 }, (_, index) => index * FOLLOWERS_COST),
      );

      const ledger = await readKeyLedger(target, key.id);
      expect(ledger.creditsRemaining).toBe(0);
      // Every request is counted; free refusals past 10 per second share one counted record.
      const requestsWith = (status: number) =>
        ledger.usage.filter((record) => record.status === status).reduce((sum, record) => sum + record.requests, 0);
      expect({ ok: requestsWith(200), quota: requestsWith(402) }).toEqual({ ok: 20, quota: 30 });
      expect(ledger.usage.reduce((sum, record) => sum + record.credits_charged, 0)).toBe(key.credits);
      expect(ledger.usage.every((record) => record.operation === "followers")).toBe(true);
      expect(ledger.usage.every((record) => record.credits_charged === (record.status === 200 ? FOLLOWERS_COST : 0))).toBe(true);
      expect(ledger.usage.every((record) => record.status === 402 || record.requests === 1)).toBe(true);
      // One record per charged request, and each record under a requestId a client saw.
      const requestIds = answers.map((answer) => expectEnvelope(answer).requestId);
      const succeededIds = succeeded.map((answer) => expectEnvelope(answer).requestId).sort();
      expect(ledger.usage.filter((record) => record.status === 200).map((record) => record.request_id).sort()).toEqual(succeededIds);
      expect(ledger.usage.every((record) => requestIds.includes(record.request_id))).toBe(true);
    });

    it("keeps answering 402 at 0 credits once the dust has settled", async () => {
      const answer = await call(target, paths.followers, { auth: key, query: { userid: "2000000002" } });
      expectError(answer, 402, messages.quota);
      expectCredits(answer, { cost: FOLLOWERS_COST, charged: 0, remaining: 0 });
    });
  });

  describe("GET /v1/account, polled by 20 at once while the key spends", () => {
    const key = target.keys.concurrencyBalance;
    const LOOKUPS = 10;

    it("shows each charged lookup in the very next poll, and every poll a balance the key really had, never going back up", async () => {
      let polling = true;
      const pollers = Array.from({ length: 20 }, async () => {
        const answers: Answer[] = [];
        while (polling) answers.push(await call(target, ACCOUNT, { auth: key }));
        return answers;
      });
      try {
        for (let lookup = 1; lookup <= LOOKUPS; lookup += 1) {
          const charged = await call(target, paths.followers, { auth: key, query: { userid: "2000000002" } });
          expectCredits(charged, { cost: FOLLOWERS_COST, charged: FOLLOWERS_COST, remaining: key.credits - FOLLOWERS_COST * lookup });
          const next = await call(target, ACCOUNT, { auth: key });
          expect(next.status).toBe(200);
          expect(remainingCredits(next)).toBe(key.credits - FOLLOWERS_COST * lookup);
          expect(expectEnvelope(next).data).toMatchObject({
            key: {
              credits_remaining: key.credits - FOLLOWERS_COST * lookup,
              credits_spent_today: FOLLOWERS_COST * lookup,
              credits_spent_this_month: FOLLOWERS_COST * lookup,
            },
          });
        }
      } finally {
        polling = false;
      }
      const polled = await Promise.all(pollers);
      const possible = Array.from({ length: LOOKUPS + 1 }, (_, spent) => key.credits - FOLLOWERS_COST * spent);
      for (const answers of polled) {
        expect(answers.every((answer) => answer.status === 200)).toBe(true);
        const balances = answers.map(remainingCredits);
        expect(balances.every((balance) => possible.includes(balance))).toBe(true);
        // One client's polls, one after another: a later one never shows credits an earlier one saw spent.
        expect(balances).toEqual([...balances].sort((left, right) => right - left));
      }
      expect(polled.flat().length).toBeGreaterThan(20);
    });
  });

  describe("requests settled together", () => {
    const tally = (answers: Answer[]): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const answer of answers) {
        const message = (answer.body as { message?: unknown } | undefined)?.message;
        const label = `${answer.status} ${String(message)}`;
        counts[label] = (counts[label] ?? 0) + 1;
      }
      return counts;
    };

    it("answers another key's malformed request (a NUL byte) with 400 and fails none of the requests around it", async () => {
      const victim = target.keys.concurrencyVictim;
      const attacker = target.keys.concurrencyAttacker;
      const urn = "urn:li:member:3000000003";
      const sent = Array.from({ length: 100 }, (_, index) =>
        index % 25 === 12
          ? { from: "attacker", answer: call(target, paths.publications, { auth: attacker, query: { urn: `${urn}\u0000` } }) }
          : { from: "victim", answer: call(target, paths.publications, { auth: victim, query: { urn } }) },
      );
      const answers = await Promise.all(sent.map(async ({ from, answer }) => ({ from, answer: await answer })));
      const of = (from: string) => answers.filter((sentAnswer) => sentAnswer.from === from).map(({ answer }) => answer);
      expect({ victim: tally(of("victim")), attacker: tally(of("attacker")) }).toEqual({
        victim: { "200 success": 96 },
        attacker: { [`400 ${messages.invalid("urn")}`]: 4 },
      });
    });
  });
});
