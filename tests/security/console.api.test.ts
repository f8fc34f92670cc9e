import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { ApiTarget } from "@/tests/api/harness";
import { consoleClient, expectReadableError, type Session } from "./console-session";

/**
 * Hardening (docs/security.md) over HTTP, against the API suite's production servers: a cross-site
 * GET spends nothing, a signed-out cookie is dead, an admin never obtains another user's token,
 * webhook URLs pointing inside are refused when saved, and bad strings (NUL, invalid UTF-8, lone
 * surrogates) answer a readable 400. And an analyst cannot mint credits with an automatic refill:
 * it is paid from their allowance, refused when that holds less, and stops when it cannot pay.
 */
const targets = inject("apiTargets");

const EVENT_ID = "1000000000000007";
const NOT_PUBLIC = "The webhook URL is refused: not a public address.";

type KeyAnswer = { key: { id: string; creditsRemaining: number; ownerId: string | null }; token?: string };
type RefillView = { refill: unknown; refillPayerId: string | null; refillStopped: { at: string; credits: number } | null; nextRefillAt: string | null };

describe.each(targets)("$kind server: hardening of the console API", (target: ApiTarget) => {
  const client = consoleClient(target);
  const { api } = client;
  let admin: Session;

  const v1 = async (token: string) => {
    const response = await fetch(`${target.baseUrl}/v1/eventsite/event_details_id?event_id=${EVENT_ID}`, { headers: { Authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    return response.status;
  };

  const newKey = async (session: Session, json: Record<string, unknown>) => {
    const answer = await api(session, "POST", "/api/keys", { json: { name: `key ${Date.now()}`, qpsLimit: 100, ...json } });
    expect(answer.status, answer.text).toBe(201);
    return answer.body as KeyAnswer & { token: string };
  };

  const creditsOf = async (session: Session, keyId: string): Promise<number> => {
    const answer = await api(session, "GET", `/api/keys/${keyId}`);
    expect(answer.status, answer.text).toBe(200);
    return (answer.body as KeyAnswer).key.creditsRemaining;
  };

  beforeAll(async () => {
    admin = await client.admin();
  });

  describe("a console lookup sent cross-site (finding 4)", () => {
    it("answers 403 and charges nothing, whether a navigation, a same-site page or a foreign Origin sent it", async () => {
      const user = await client.analyst(admin, "cross-site-get");
      const { key } = await newKey(user, { credits: 100, useForConsole: true });
      const path = `/api/console/lookup/event_details_id?event_id=${EVENT_ID}`;
      const crossSite: Record<string, string>[] = [
        { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" },
        { "Sec-Fetch-Site": "same-site" },
        { Origin: "https://evil.example" },
      ];
      for (const headers of crossSite) {
        expectReadableError(await api(user, "GET", path, { headers }), 403, JSON.stringify(headers), "cross_origin");
      }
      expect(await creditsOf(user, key.id)).toBe(100);
      // Control: the console itself (same origin) spends 4 for the same lookup.
      const own = await api(user, "GET", path, { headers: { "Sec-Fetch-Site": "same-origin" } });
      expect(own.status, own.text.slice(0, 200)).toBe(200);
      expect(await creditsOf(user, key.id)).toBe(96);
      // Typing the address (Sec-Fetch-Site: none) is the user's own doing.
      expect((await api(user, "GET", "/api/me", { headers: { "Sec-Fetch-Site": "none" } })).status).toBe(200);
    });
  });

  describe("signing out (finding 5)", () => {
    it("the old cookie replayed after POST /api/auth/signout gets 401; other sessions of the user live on", async () => {
      const user = await client.analyst(admin, "sign-out");
      const other = await client.signIn(user.email, user.password);
      expect((await api(user, "GET", "/api/me")).status).toBe(200);
      expect(await client.signOut(user)).toBeLessThan(400);
      expectReadableError(await api(user, "GET", "/api/me"), 401, "replayed cookie", "unauthenticated");
      expectReadableError(await api(user, "GET", "/api/keys"), 401, "replayed cookie on /api/keys", "unauthenticated");
      expect((await api(other, "GET", "/api/me")).status, "the user's other session").toBe(200);
    });
  });

  describe("an admin and another user's key (finding 9)", () => {
    it("rolling it is refused and answers no token; the owner's token keeps working until the admin revokes it", async () => {
      const owner = await client.analyst(admin, "key-owner");
      const { key, token } = await newKey(owner, { credits: 100 });
      expect(await v1(token)).toBe(200);
      for (const grace of ["none", "1h", "24h"]) {
        const rolled = await api(admin, "POST", `/api/keys/${key.id}/roll`, { json: { grace } });
        expectReadableError(rolled, 422, `admin roll (${grace})`, "key_rule");
        expect(rolled.text).not.toMatch(/"token"/);
      }
      expect(await v1(token)).toBe(200);
      // What admins may do: top up, cap, revoke.
      expect((await api(admin, "POST", `/api/keys/${key.id}/credits`, { json: { credits: 5, reason: "support" } })).status).toBe(200);
      expect((await api(admin, "PUT", `/api/keys/${key.id}/budget`, { json: { dailyCreditCap: 1000 } })).status).toBe(200);
      expect((await api(admin, "DELETE", `/api/keys/${key.id}`)).status).toBe(200);
      expect(await v1(token)).toBe(401);
      // The owner rolls their own key and gets its token, as before.
      const own = await newKey(owner, { credits: 10 });
      const rolled = await api(owner, "POST", `/api/keys/${own.key.id}/roll`, { json: { grace: "none" } });
      expect(rolled.status, rolled.text).toBe(200);
      const fresh = (rolled.body as { token: string }).token;
      expect(await v1(fresh)).toBe(200);
      expect(await v1(own.token)).toBe(401);
    });
  });

  describe("webhook URLs pointing inside, when saved (finding 1)", () => {
    it.each([
      "http://127.1:6379/",
      "http://2130706433:5432/",
      "http://0x7f000001/",
      "http://0177.0.0.1/",
      "http://127.0.0.1./",
      "http://[::1]/",
      "http://localhost:3000/",
      "https://10.0.0.1/",
      "https://192.168.0.1/",
      "https://[fd00::1]/",
      "https://[::]/",
      "https://[::ffff:169.254.169.254]/",
    ])("%s → 400 refused: not a public address", async (webhookUrl) => {
      const user = await client.analyst(admin, "webhook");
      const { key } = await newKey(user, { credits: 10 });
      const answer = await api(user, "PUT", `/api/keys/${key.id}/alerts`, { json: { thresholdCredits: 5, webhookUrl } });
      expectReadableError(answer, 400, webhookUrl, "invalid_request");
      expect((answer.body as { error: { message: string } }).error.message).toBe(`webhookUrl: ${NOT_PUBLIC}`);
      expect(((await api(user, "GET", `/api/keys/${key.id}/alerts`)).body as { settings: { webhookUrl: string | null } }).settings.webhookUrl).toBeNull();
    });
  });

  describe("bad strings on console routes (finding 7)", () => {
    it("NUL, invalid UTF-8 and lone surrogates answer a readable 400, in the path, the query and the body", async () => {
      const user = await client.analyst(admin, "bad-strings");
      const { key } = await newKey(user, { credits: 10 });
      const cases: [label: string, method: string, path: string, raw?: string | Uint8Array<ArrayBuffer>][] = [
        ["NUL in a key id", "GET", "/api/keys/key_x%00"],
        ["NUL in a key id (delete)", "DELETE", "/api/keys/key_x%00"],
        ["overlong NUL in a key id", "GET", "/api/keys/key_x%C0%80"],
        ["invalid UTF-8 in a key id", "GET", "/api/keys/key_%FF"],
        ["lone surrogate in a key id", "GET", "/api/keys/key_%ED%A0%80"],
        ["NUL in usage keyId", "GET", "/api/usage/summary?keyId=key_x%00"],
        ["NUL in usage events keyId", "GET", "/api/usage/events?keyId=%00"],
        ["invalid UTF-8 in the query", "GET", "/api/usage/events?status=%FF"],
        ["NUL in a lookup parameter", "GET", "/api/console/lookup/event_details_id?event_id=1%00"],
        ["NUL in an alert id", "POST", "/api/alerts/1%00/ack"],
        ["NUL in a key name", "POST", "/api/keys", JSON.stringify({ name: "a\u0000b", credits: 1, qpsLimit: 1 })],
        ["lone surrogate in a key name", "POST", "/api/keys", '{"name":"a\\ud800b","credits":1,"qpsLimit":1}'],
        ["NUL in a webhook URL", "PUT", `/api/keys/${key.id}/alerts`, JSON.stringify({ webhookUrl: "https://example.com/\u0000" })],
        ["NUL in a field name", "PUT", `/api/keys/${key.id}/budget`, '{"dailyCreditCap":1,"x\\u0000":1}'],
        ["invalid UTF-8 body", "POST", "/api/keys", Uint8Array.from([...Buffer.from('{"name":"'), 0xff, ...Buffer.from('"}')])],
        ["a body nested 100,000 deep", "POST", "/api/keys", `${"[".repeat(100_000)}${"]".repeat(100_000)}`],
      ];
      for (const [label, method, path, raw] of cases) {
        expectReadableError(await api(user, method, path, { raw }), 400, label);
      }
      const adminCases: [label: string, method: string, path: string, json: unknown][] = [
        ["NUL in a user name", "POST", "/api/admin/users", { email: "nul@example.test", name: "a\u0000b", role: "analyst", password: "a long password 1", creditAllowance: 0 }],
        ["NUL in a user id", "PATCH", "/api/admin/users/usr_%00", { creditAllowance: 1 }],
        ["NUL in a top-up reason", "POST", `/api/keys/${key.id}/credits`, { credits: 1, reason: "a\u0000b" }],
        ["NUL in an upstream URL", "PUT", "/api/admin/upstream", { baseUrl: "https://example.com/\u0000", check: false }],
      ];
      for (const [label, method, path, json] of adminCases) {
        expectReadableError(await api(admin, method, path, { json }), 400, label);
      }
      expect(await creditsOf(user, key.id)).toBe(10);
    });
  });

  describe("a refill set by an analyst", () => {
    const DAILY_BILLION = { credits: 1_000_000_000, interval: "daily" };
    const refusal = (held: number) =>
      `Not enough credit allowance for a refill of 1,000,000,000 credits a day: your allowance holds ${held}. Ask an administrator for more.`;
    const allowanceOf = async (user: Session) => ((await api(user, "GET", "/api/me")).body as { creditAllowance: number }).creditAllowance;
    const keyOf = async (user: Session, keyId: string) => (await api(user, "GET", `/api/keys/${keyId}`)).body as { key: KeyAnswer["key"] & RefillView };

    it("is refused with 422 when the allowance cannot pay it, at creation and on a change, and nothing is written", async () => {
      const user = await client.analyst(admin, "refill-mint", 0);
      const created = await api(user, "POST", "/api/keys", { json: { name: "mint", credits: 0, refill: DAILY_BILLION } });
      expectReadableError(created, 422, "POST /api/keys with a refill of 10^9", "key_rule");
      expect((created.body as { error: { message: string } }).error.message).toBe(refusal(0));
      expect(((await api(user, "GET", "/api/keys")).body as { keys: unknown[] }).keys).toEqual([]);

      const { key } = await newKey(user, { credits: 0 });
      const patched = await api(user, "PATCH", `/api/keys/${key.id}`, { json: { refill: DAILY_BILLION } });
      expectReadableError(patched, 422, "PATCH /api/keys/:id with a refill of 10^9", "key_rule");
      expect((patched.body as { error: { message: string } }).error.message).toBe(refusal(0));
      expect((await keyOf(user, key.id)).key).toMatchObject({ refill: null, refillPayerId: null, creditsRemaining: 0 });
    });

    it("is paid from the allowance at each refill, and one the allowance cannot pay stops instead of adding credits", async () => {
      const user = await client.analyst(admin, "refill-paid", 1000);
      const refill = { credits: 600, interval: "daily", mode: "increase_by" };
      const first = await newKey(user, { credits: 0, refill });
      const second = await newKey(user, { credits: 0, refill });
      expect((await keyOf(user, first.key.id)).key).toMatchObject({ refillPayerId: user.id, refillStopped: null });
      expect(await allowanceOf(user)).toBe(1000);
      // The sweep needs the server's database: only where it is PostgreSQL can the test run it beside the server.
      if (target.databaseUrl === null) return;
      const sweep = new pg.Client({ connectionString: target.databaseUrl });
      await sweep.connect();
      try {
        // As if both keys had last been refilled yesterday: the server's own sweep function runs for today.
        await sweep.query("UPDATE api_keys SET refilled_period = refilled_period - 1 WHERE id = ANY($1)", [[first.key.id, second.key.id]]);
        await sweep.query("SELECT * FROM refill_keys(now())");
      } finally {
        await sweep.end();
      }
      const [paid, unpaid] = [first.key.id, second.key.id].sort();
      expect((await keyOf(user, paid ?? "")).key).toMatchObject({ creditsRemaining: 600, refillStopped: null });
      const stopped = (await keyOf(user, unpaid ?? "")).key;
      expect(stopped).toMatchObject({ creditsRemaining: 0, refillStopped: { credits: 600 }, nextRefillAt: null });
      expect(await allowanceOf(user)).toBe(400);
    });
  });
});
