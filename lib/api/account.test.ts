import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Queryable } from "@/lib/db/client";
import { createAuthenticator } from "@/lib/keys/authenticate";
import { createKey, revokeKey } from "@/lib/keys/repository";
import { createTokenVerifier } from "@/lib/keys/tokens";
import { createRateLimiter } from "@/lib/ratelimit/limiter";
import { pgliteDatabase } from "@/tests/support/databases";
import { createAccountReader } from "@/lib/usage/account-reader";
import { accountDataSchema } from "@/lib/usage/account-schema";
import { runAccount, type AccountDeps } from "./account";
import { newTeam, newUser, settleScript, TEST_SECRET } from "@/tests/support/usage";

const database = pgliteDatabase();
let db: Db;
let deps: AccountDeps;

const issue = async (credits: number, qpsLimit = 100) =>
  createKey(db, TEST_SECRET, { name: `account-${credits}`, ownerId: null, credits, qpsLimit, expiresAt: null });

const usageRows = async (keyId: string) =>
  Number((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_events WHERE key_id = $1", [keyId]))[0]?.n);

const envelope = (body: string) => JSON.parse(body) as { code: number; message: string; data: unknown; requestId: string };

beforeAll(async () => {
  db = await database.open();
  deps = {
    accounts: createAccountReader(async () => db),
    authenticator: createAuthenticator({ db: async () => db, verify: createTokenVerifier(TEST_SECRET), ttlMs: 0 }),
    limiter: createRateLimiter({}),
  };
}, 120_000);

afterAll(async () => {
  await db?.close();
  await database.cleanup();
});

describe("GET /v1/account", () => {
  it("answers the key's credits, limit, cap and spend today and this month", async () => {
    const { key, token } = await issue(100);
    await db.query("UPDATE api_keys SET daily_credit_cap = 50 WHERE id = $1", [key.id]);
    await settleScript(db, [
      { keyId: key.id, operation: "event_details_id", costCredits: 4, outcome: "found", agoMs: 1000, latencyMs: 1 },
      { keyId: key.id, operation: "followers", costCredits: 2, outcome: "found", agoMs: 500, latencyMs: 1 },
      { keyId: key.id, operation: "followers", costCredits: 2, outcome: "400", agoMs: 400, latencyMs: 1 },
      // A reservation in flight counts as spent.
      { keyId: key.id, operation: "get_user_publications", costCredits: 1, outcome: "reserve", agoMs: 300, latencyMs: 1 },
    ]);
    const result = await runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, deps);
    expect(result.status).toBe(200);
    const body = envelope(result.body);
    expect(body).toMatchObject({ code: 0, message: "success" });
    expect(body.requestId).toBe(result.headers["X-Request-Id"]);
    expect(body.data).toEqual({
      key: {
        id: key.id,
        name: "account-100",
        credits_remaining: 93,
        credits_granted: 100,
        qps_limit: 100,
        daily_credit_cap: 50,
        credits_spent_today: 7,
        // Earlier days of this month count too; on the 1st (UTC) they are today.
        credits_spent_this_month: 7,
        refill: null,
        nextRefillAt: null,
        pool: null,
        cap: null,
        budget: null,
        // The daily cap leaves 50 − 7 of the 93 credits.
        credits_spendable: 43,
        limited_by: "daily_cap",
      },
    });
    expect(accountDataSchema.safeParse(body.data).success).toBe(true);
    expect(result.headers).toMatchObject({ "X-Credits-Charged": "0", "X-Credits-Remaining": "93", "RateLimit-Limit": "100" });
  });

  it("says which of the pool, the key's own cap or the member's budget leaves the least", async () => {
    const owner = await newUser(db, "account-owner@example.test");
    const member = await newUser(db, "account-member@example.test");
    const team = await newTeam(db, owner.id, 500, [{ userId: member.id, budget: 30 }]);
    const capped = await createKey(db, TEST_SECRET, {
      name: "capped", ownerId: owner.id, credits: 0, qpsLimit: 100, expiresAt: null, workspaceId: team, cap: { credits: 10, period: "month" },
    });
    const budgeted = await createKey(db, TEST_SECRET, { name: "budgeted", ownerId: member.id, credits: 0, qpsLimit: 100, expiresAt: null, workspaceId: team });
    await settleScript(db, [
      { keyId: capped.key.id, operation: "event_details_id", costCredits: 4, outcome: "found", agoMs: 500, latencyMs: 1 },
      { keyId: budgeted.key.id, operation: "event_details_id", costCredits: 4, outcome: "found", agoMs: 400, latencyMs: 1 },
    ]);
    const account = async (token: string) => {
      const result = await runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, deps);
      expect(result.headers["X-Credits-Remaining"]).toBe("492");
      const data = envelope(result.body).data as { key: Record<string, unknown> };
      expect(accountDataSchema.safeParse(data).success).toBe(true);
      return data.key;
    };
    expect(await account(capped.token)).toMatchObject({
      credits_remaining: 492,
      credits_granted: 500,
      pool: { workspace_id: team, credits_remaining: 492, credits_granted: 500 },
      cap: { credits: 10, period: "month", credits_spent: 4, credits_left: 6 },
      budget: null,
      credits_spendable: 6,
      limited_by: "cap",
    });
    expect(await account(budgeted.token)).toMatchObject({
      pool: { workspace_id: team, credits_remaining: 492 },
      cap: null,
      budget: { credits: 30, credits_spent_this_month: 4, credits_left: 26 },
      credits_spendable: 26,
      limited_by: "budget",
    });
    await db.query("UPDATE workspaces SET pool_credits = 20 WHERE id = $1", [team]);
    const pooled = (await runAccount({ authorization: `Bearer ${budgeted.token}`, clientAddress: "127.0.0.1" }, deps)).body;
    expect((envelope(pooled).data as { key: unknown }).key).toMatchObject({ credits_spendable: 20, limited_by: "pool" });
  });

  it("is free: no credits charged, no usage record written", async () => {
    const { key, token } = await issue(10);
    for (let index = 0; index < 5; index += 1) expect((await runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, deps)).status).toBe(200);
    expect(await usageRows(key.id)).toBe(0);
    const rows = await db.query<{ c: number }>("SELECT credits_remaining::int AS c FROM api_keys WHERE id = $1", [key.id]);
    expect(rows[0]?.c).toBe(10);
  });

  it("answers 401 apiKey is null without a bearer token, apiKey is invalid for a bad or revoked one", async () => {
    const missing = await runAccount({ authorization: null, clientAddress: "127.0.0.1" }, deps);
    expect([missing.status, envelope(missing.body).message]).toEqual([401, "apiKey is null"]);
    const garbage = await runAccount({ authorization: "Bearer not-a-token", clientAddress: "127.0.0.1" }, deps);
    expect([garbage.status, envelope(garbage.body).message]).toEqual([401, "apiKey is invalid"]);
    const { key, token } = await issue(10);
    await revokeKey(db, key.id);
    const revoked = await runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, deps);
    expect([revoked.status, envelope(revoked.body)]).toEqual([401, { code: 401, message: "apiKey is invalid", data: null, requestId: expect.any(String) }]);
  });

  it("counts against the key's per-second limit: 429 qps limit exceeded with Retry-After", async () => {
    const { token } = await issue(10, 1);
    expect((await runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, deps)).status).toBe(200);
    const limited = await runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, deps);
    expect([limited.status, envelope(limited.body).message]).toEqual([429, "qps limit exceeded"]);
    expect(limited.headers["Retry-After"]).toMatch(/^\d+$/);
  });

  it("answers 500 Internal server error when the database fails, and nothing else leaks", async () => {
    const { token } = await issue(10);
    const broken: AccountDeps = { ...deps, accounts: createAccountReader(async () => ({ query: async () => { throw new Error("db down: secret detail"); } })) };
    const result = await runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, broken);
    expect(result.status).toBe(500);
    expect(envelope(result.body).message).toBe("Internal server error");
    expect(result.body).not.toContain("secret detail");
  });

  describe("polled by many at once", () => {
    /**
     * The real database, counting the statements sent to it (`sent`) and the reads asked of the
     * reader (`asked`); `hold` keeps the statements' answers back until released.
     */
    const watched = () => {
      const sent: string[] = [];
      let asked = 0;
      let held: Array<() => void> | null = null;
      const queryable: Queryable = {
        query: async <Row>(text: string, params?: unknown[]) => {
          sent.push(text);
          const rows = await db.query<Row>(text, params);
          if (held !== null) {
            const queue = held;
            await new Promise<void>((resolve) => queue.push(resolve));
          }
          return rows;
        },
      };
      // Credentials are cached, as in the server: a key revoked after it was loaded reaches the read.
      const authenticator = createAuthenticator({ db: async () => db, verify: createTokenVerifier(TEST_SECRET), ttlMs: 60_000 });
      const reader = createAccountReader(async () => queryable);
      return {
        sent,
        asked: () => asked,
        deps: {
          ...deps,
          authenticator,
          accounts: {
            read: (keyId: string) => {
              asked += 1;
              return reader.read(keyId);
            },
          },
        },
        hold: () => {
          held = [];
        },
        release: () => {
          const queue = held ?? [];
          held = null;
          for (const resolve of queue) resolve();
        },
      };
    };
    const poll = (accountDeps: AccountDeps, token: string) => runAccount({ authorization: `Bearer ${token}`, clientAddress: "127.0.0.1" }, accountDeps);
    const remaining = (result: { body: string }) => (envelope(result.body).data as { key: { credits_remaining: number } }).key.credits_remaining;

    it("answers concurrent polls of several keys with one statement, each with its own key's figures", async () => {
      const keys = await Promise.all([issue(11), issue(22), issue(33)]);
      const revoked = await issue(44);
      const { sent, deps: watchedDeps } = watched();
      for (const { token } of [...keys, revoked]) expect((await poll(watchedDeps, token)).status).toBe(200);
      sent.length = 0;
      await revokeKey(db, revoked.key.id);
      const polls = Array.from({ length: 30 }, (_, index) => keys[index % 3] ?? revoked);
      const answers = await Promise.all([...polls.map(({ token }) => poll(watchedDeps, token)), poll(watchedDeps, revoked.token)]);
      expect(sent).toHaveLength(1);
      expect(answers.slice(0, 30).map(remaining)).toEqual(polls.map(({ key }) => key.creditsRemaining));
      expect(answers.slice(0, 30).map((answer) => (envelope(answer.body).data as { key: { id: string } }).key.id)).toEqual(polls.map(({ key }) => key.id));
      expect(new Set(answers.map((answer) => envelope(answer.body).requestId)).size).toBe(31);
      expect([answers[30]?.status, envelope(answers[30]?.body ?? "{}").message]).toEqual([401, "apiKey is invalid"]);
    });

    it("never answers a poll from a statement that started before it: a charge settled meanwhile is in its answer", async () => {
      const { key, token } = await issue(100);
      const { sent, asked, deps: watchedDeps, hold, release } = watched();
      hold();
      const early = poll(watchedDeps, token);
      // The early poll's statement has run (its answer is held back) before the charge.
      await expect.poll(() => sent.length).toBe(1);
      await settleScript(db, [{ keyId: key.id, operation: "followers", costCredits: 2, outcome: "found", agoMs: 0, latencyMs: 1 }]);
      const late = poll(watchedDeps, token);
      await expect.poll(asked).toBe(2);
      // Its own statement starts at once, not after the early one's: a lone poller never waits on another.
      await expect.poll(() => sent.length).toBe(2);
      release();
      expect(remaining(await early)).toBe(100);
      expect(remaining(await late)).toBe(98);
      expect(sent).toHaveLength(2);
    });

    it("shows a charge in the very next poll", async () => {
      const { key, token } = await issue(50);
      for (let charge = 1; charge <= 3; charge += 1) {
        await settleScript(db, [{ keyId: key.id, operation: "followers", costCredits: 2, outcome: "found", agoMs: 0, latencyMs: 1 }]);
        const answer = envelope((await poll(deps, token)).body).data as { key: { credits_remaining: number; credits_spent_today: number } };
        expect(answer.key).toMatchObject({ credits_remaining: 50 - 2 * charge, credits_spent_today: 2 * charge });
      }
    });
  });
});
