import fs from "node:fs";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { cookieHeader, parseJsonOrUndefined, SESSION_COOKIE, sessionCookie, setCookiePairs } from "@/lib/cli/console-session";
import { randomSecret, type ApiTarget } from "./harness";
import { contractMessages as messages, paths } from "./http";

/**
 * The console JSON API (/api/*) and sign-in, attacked over HTTP on the production servers:
 * one analyst reaching for another's key by id, analysts on admin routes, sign-in guessing
 * (same answer, same time, rate limit), cross-site requests, tokens that must never be sent
 * twice nor logged, and malformed input that must change nothing.
 */
const targets = inject("apiTargets");

const INVALID_CREDENTIALS = "Invalid email or password.";
const TOO_MANY_ATTEMPTS = /^Too many sign-in attempts\. Try again in \d+ minutes?\.$/;
const EVIL_ORIGIN = "https://evil.example";
const FOLLOWERS_USER = "2000000002";

const must = <T>(value: T | null | undefined, what: string): T => {
  if (value === null || value === undefined) throw new Error(`missing: ${what}`);
  return value;
};

const unique = () => `${Date.now().toString(36)}${randomSecret(6).toLowerCase().replace(/[^a-z0-9]/g, "x")}`;
const median = (values: number[]): number => {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? must(sorted[middle], "median") : (must(sorted[middle - 1], "median") + must(sorted[middle], "median")) / 2;
};

// ---------------------------------------------------------------------------------------------
// Views the console API answers with (lib/keys/view.ts, lib/users/views.ts)

type KeyView = {
  id: string;
  name: string;
  ownerId: string | null;
  tokenHint: string;
  status: "active" | "revoked";
  creditsRemaining: number;
  creditsGranted: number;
  qpsLimit: number;
  isConsoleKey: boolean;
};
type IssuedKey = { key: KeyView; token: string };
type AccountUser = { id: string; email: string; role: "admin" | "analyst"; status: string; creditAllowance: number; consoleKeyId: string | null };

// ---------------------------------------------------------------------------------------------
// HTTP: sessions, the console API, /v1, and a transcript of every answer per target

type Answer = { label: string; status: number; headers: Headers; text: string; body: unknown };
type Session = { email: string; password: string; cookie: string; rawSessionToken: string };
type SignInAnswer = { status: number; error: string | null; session: string | null; setCookies: string[]; elapsedMs: number; url: string | null };

type Client = ReturnType<typeof clientFor>;

const clientFor = (target: ApiTarget) => {
  /** Every answer this suite got from the target, in order: the token audit reads it. */
  const transcript: Answer[] = [];
  /** Every token the target issued to this suite, with the index of the answer that carried it. */
  const issued: { token: string; answerIndex: number; label: string }[] = [];
  /** Secrets that must never show up in the server log. */
  const secrets: [label: string, value: string][] = [];

  const record = async (label: string, response: Response): Promise<Answer> => {
    const text = await response.text();
    const answer = { label, status: response.status, headers: response.headers, text, body: parseJsonOrUndefined(text) };
    transcript.push(answer);
    return answer;
  };

  /** The token an answer carries (POST /api/keys, roll), remembered with that answer. */
  const tokenOf = (answer: Answer): string => {
    const token = must((answer.body as { token?: string } | undefined)?.token, `token in ${answer.label}: ${answer.text.slice(0, 200)}`);
    issued.push({ token, answerIndex: transcript.indexOf(answer), label: answer.label });
    secrets.push([`token issued by ${answer.label}`, token], [`token signature issued by ${answer.label}`, token.split(".")[2] ?? token]);
    return token;
  };

  /**
   * Sign-in as the browser does it: the CSRF token (cookie + value), then the credentials
   * callback with `json=true`; next-auth answers `{url}` with `?error=<message>` on failure.
   */
  const signInAttempt = async (email: string, password: string, options: { headers?: Record<string, string>; csrf?: "omit" } = {}): Promise<SignInAnswer> => {
    const csrfResponse = await fetch(`${target.baseUrl}/api/auth/csrf`, { redirect: "manual", headers: options.headers });
    const cookies = setCookiePairs(csrfResponse);
    const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
    const form = new URLSearchParams({
      csrfToken: options.csrf === "omit" ? "" : csrfToken,
      email,
      password,
      callbackUrl: `${target.baseUrl}/keys`,
      json: "true",
    });
    const started = performance.now();
    const response = await fetch(`${target.baseUrl}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Cookie: options.csrf === "omit" ? "" : cookieHeader(cookies),
        ...options.headers,
      },
      body: form,
    });
    const text = await response.text();
    const elapsedMs = performance.now() - started;
    const url = (parseJsonOrUndefined(text) as { url?: string } | undefined)?.url ?? null;
    const session = sessionCookie(setCookiePairs(response));
    const answer: Answer = { label: `sign-in ${email}`, status: response.status, headers: response.headers, text, body: parseJsonOrUndefined(text) };
    transcript.push(answer);
    return {
      status: response.status,
      error: url ? new URL(url, target.baseUrl).searchParams.get("error") : null,
      session,
      setCookies: response.headers.getSetCookie(),
      elapsedMs,
      url,
    };
  };

  const signIn = async (email: string, password: string): Promise<Session> => {
    const attempt = await signInAttempt(email, password);
    expect({ status: attempt.status, error: attempt.error }, `signing in as ${email}`).toEqual({ status: 200, error: null });
    const cookie = must(attempt.session, `session cookie for ${email}`);
    const rawSessionToken = cookie.split("=").slice(1).join("=");
    secrets.push([`session of ${email}`, rawSessionToken]);
    return { email, password, cookie, rawSessionToken };
  };

  /** A console API request as a script sends it: session cookie, JSON, no Origin. */
  const api = async (
    session: Session | null,
    method: string,
    path: string,
    options: { json?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
    if (session) headers.Cookie = session.cookie;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.json !== undefined) body = JSON.stringify(options.json);
    if (body !== undefined) headers["Content-Type"] ??= "application/json";
    const response = await fetch(`${target.baseUrl}${path}`, { method, headers, body, redirect: "manual" });
    return record(`${method} ${path} as ${session?.email ?? "nobody"}`, response);
  };

  /** A /v1 follower page with a token: 200 and 2 credits while the key is good. */
  const followers = async (token: string, userId = FOLLOWERS_USER): Promise<Answer> => {
    const response = await fetch(`${target.baseUrl}${paths.followers}?userid=${userId}`, { headers: { Authorization: `Bearer ${token}` } });
    return record(`GET ${paths.followers} with a token`, response);
  };

  const admin = (): Promise<Session> => signIn(must(target.env.ADMIN_EMAIL, "ADMIN_EMAIL"), must(target.env.ADMIN_PASSWORD, "ADMIN_PASSWORD"));

  /** A new analyst (admin API), signed in. */
  const analyst = async (adminSession: Session, label: string, creditAllowance = 1000): Promise<Session & { id: string }> => {
    const email = `${label}-${unique()}@example.test`;
    const password = `pw ${randomSecret(20)}`;
    secrets.push([`password of ${email}`, password]);
    const created = await api(adminSession, "POST", "/api/admin/users", {
      json: { email, name: `Analyst ${label}`, role: "analyst", password, creditAllowance },
    });
    expect(created.status, created.text).toBe(201);
    const user = created.body as AccountUser;
    return { ...(await signIn(email, password)), id: user.id };
  };

  const createKey = async (session: Session, input: { credits: number; qpsLimit?: number; name?: string; useForConsole?: boolean }) => {
    const answer = await api(session, "POST", "/api/keys", {
      json: { name: input.name ?? `key ${unique()}`, credits: input.credits, qpsLimit: input.qpsLimit ?? 100, useForConsole: input.useForConsole ?? false },
    });
    expect(answer.status, answer.text).toBe(201);
    const token = tokenOf(answer);
    return { key: (answer.body as IssuedKey).key, token };
  };

  const keyOf = async (session: Session, keyId: string): Promise<KeyView> => {
    const answer = await api(session, "GET", `/api/keys/${keyId}`);
    expect(answer.status, answer.text).toBe(200);
    return (answer.body as { key: KeyView }).key;
  };

  const keyList = async (session: Session): Promise<KeyView[]> => {
    const answer = await api(session, "GET", "/api/keys");
    expect(answer.status, answer.text).toBe(200);
    return (answer.body as { keys: KeyView[] }).keys;
  };

  const me = async (session: Session): Promise<AccountUser> => {
    const answer = await api(session, "GET", "/api/me");
    expect(answer.status, answer.text).toBe(200);
    return answer.body as AccountUser;
  };

  const users = async (adminSession: Session): Promise<AccountUser[]> => {
    const answer = await api(adminSession, "GET", "/api/admin/users");
    expect(answer.status, answer.text).toBe(200);
    return (answer.body as { users: AccountUser[] }).users;
  };

  /** The id of the newest audit entry: any write through the console API adds one. */
  const newestAuditId = async (adminSession: Session): Promise<number | null> => {
    const answer = await api(adminSession, "GET", "/api/admin/audit?limit=1");
    expect(answer.status, answer.text).toBe(200);
    return (answer.body as { entries: { id: number }[] }).entries[0]?.id ?? null;
  };

  return { transcript, issued, secrets, signInAttempt, signIn, api, followers, admin, analyst, createKey, keyOf, keyList, me, users, newestAuditId, tokenOf };
};

/** `{error: {code, message}}` and nothing else, JSON, with a readable message. */
const expectApiError = (answer: Answer, status: number, code?: string): { code: string; message: string } => {
  expect({ status: answer.status, text: answer.text.slice(0, 300) }, answer.label).toMatchObject({ status });
  expect(answer.headers.get("content-type"), answer.label).toMatch(/^application\/json/);
  expect(answer.body, `${answer.label}: a JSON body`).toBeTypeOf("object");
  const body = answer.body as { error?: { code?: unknown; message?: unknown } };
  expect(Object.keys(body), answer.label).toEqual(["error"]);
  expect(Object.keys(body.error ?? {}), answer.label).toEqual(["code", "message"]);
  const error = { code: String(body.error?.code), message: String(body.error?.message) };
  expect(typeof body.error?.code, answer.label).toBe("string");
  expect(typeof body.error?.message, answer.label).toBe("string");
  if (code !== undefined) expect(error.code, `${answer.label}: ${error.message}`).toBe(code);
  // Readable: a sentence, not a serialised validation report or a stack.
  expect(error.message.length, answer.label).toBeGreaterThan(3);
  expect(error.message.length, answer.label).toBeLessThan(300);
  expect(error.message, answer.label).not.toMatch(/^[[{]|ZodError|\bat \S+ \(|\[object /);
  return error;
};

const expectNoSession = (attempt: SignInAnswer, label: string) => {
  expect(attempt.session, `${label}: no session cookie`).toBeNull();
};

// ---------------------------------------------------------------------------------------------

describe.each(targets)("$kind server: console API security", (target: ApiTarget) => {
  const client = clientFor(target);
  const { api } = client;

  let admin: Session;
  let analystA: Session & { id: string };
  let analystB: Session & { id: string };
  /** B's keys: `main` for lookups, `alerting` crossed its alert threshold. */
  let keyB: KeyView;
  let tokenB: string;
  let alertingKeyB: KeyView;
  let alertIdB: string;
  let keyA: KeyView;

  beforeAll(async () => {
    admin = await client.admin();
    analystA = await client.analyst(admin, "analyst-a", 1000);
    analystB = await client.analyst(admin, "analyst-b", 1000);
    keyA = (await client.createKey(analystA, { credits: 100, name: "A's own key" })).key;
    const main = await client.createKey(analystB, { credits: 100, name: "B's key" });
    keyB = main.key;
    tokenB = main.token;
    const alerting = await client.createKey(analystB, { credits: 10, name: "B's alerting key" });
    alertingKeyB = alerting.key;

    // B's alerting key crosses its threshold (10 → 8 ≤ 9) and records an alert; B also has a budget.
    expect((await api(analystB, "PUT", `/api/keys/${alertingKeyB.id}/alerts`, { json: { thresholdCredits: 9 } })).status).toBe(200);
    expect((await api(analystB, "PUT", `/api/keys/${keyB.id}/budget`, { json: { dailyCreditCap: 50 } })).status).toBe(200);
    expect((await client.followers(alerting.token)).status).toBe(200);
    expect((await client.followers(tokenB)).status).toBe(200);
    const alerts = await api(analystB, "GET", "/api/alerts");
    expect(alerts.status, alerts.text).toBe(200);
    const alert = (alerts.body as { alerts: { id: string; keyId: string }[] }).alerts.find((item) => item.keyId === alertingKeyB.id);
    alertIdB = must(alert?.id, "B's open alert");
    keyB = await client.keyOf(analystB, keyB.id);
    alertingKeyB = await client.keyOf(analystB, alertingKeyB.id);
  });

  // -------------------------------------------------------------------------------------------
  describe("another analyst's key, user or alert by id (IDOR)", () => {
    type IdRequest = { name: string; method: string; path: (ids: Ids) => string; json?: (ids: Ids) => unknown; status: 403 | 404 };
    type Ids = { keyId: string; alertId: string; userId: string; token: string };

    /** Every console route that names a key, alert or user, as analyst A against analyst B's. */
    const idRequests: IdRequest[] = [
      { name: "GET /api/keys/:id", method: "GET", path: (ids) => `/api/keys/${ids.keyId}`, status: 404 },
      { name: "DELETE /api/keys/:id", method: "DELETE", path: (ids) => `/api/keys/${ids.keyId}`, status: 404 },
      { name: "POST /api/keys/:id/roll (none)", method: "POST", path: (ids) => `/api/keys/${ids.keyId}/roll`, json: () => ({ grace: "none" }), status: 404 },
      { name: "POST /api/keys/:id/roll (24h)", method: "POST", path: (ids) => `/api/keys/${ids.keyId}/roll`, json: () => ({ grace: "24h" }), status: 404 },
      { name: "POST /api/keys/:id/console", method: "POST", path: (ids) => `/api/keys/${ids.keyId}/console`, json: () => ({}), status: 404 },
      {
        name: "POST /api/keys/:id/console with the key's real token",
        method: "POST",
        path: (ids) => `/api/keys/${ids.keyId}/console`,
        json: (ids) => ({ token: ids.token }),
        status: 404,
      },
      { name: "GET /api/keys/:id/alerts", method: "GET", path: (ids) => `/api/keys/${ids.keyId}/alerts`, status: 404 },
      {
        name: "PUT /api/keys/:id/alerts",
        method: "PUT",
        path: (ids) => `/api/keys/${ids.keyId}/alerts`,
        json: () => ({ thresholdCredits: 1, webhookUrl: "https://evil.example/hook" }),
        status: 404,
      },
      { name: "GET /api/keys/:id/budget", method: "GET", path: (ids) => `/api/keys/${ids.keyId}/budget`, status: 404 },
      { name: "PUT /api/keys/:id/budget", method: "PUT", path: (ids) => `/api/keys/${ids.keyId}/budget`, json: () => ({ dailyCreditCap: 0 }), status: 404 },
      { name: "POST /api/alerts/:id/ack", method: "POST", path: (ids) => `/api/alerts/${ids.alertId}/ack`, status: 404 },
      { name: "GET /api/usage/summary?keyId", method: "GET", path: (ids) => `/api/usage/summary?keyId=${ids.keyId}`, status: 404 },
      { name: "GET /api/usage/events?keyId", method: "GET", path: (ids) => `/api/usage/events?keyId=${ids.keyId}`, status: 404 },
      { name: "GET /api/usage/export?keyId", method: "GET", path: (ids) => `/api/usage/export?keyId=${ids.keyId}`, status: 404 },
      { name: "GET /api/usage/summary?userId", method: "GET", path: (ids) => `/api/usage/summary?userId=${ids.userId}`, status: 403 },
      { name: "GET /api/usage/events?userId", method: "GET", path: (ids) => `/api/usage/events?userId=${ids.userId}`, status: 403 },
      { name: "GET /api/usage/export?userId", method: "GET", path: (ids) => `/api/usage/export?userId=${ids.userId}&kind=daily`, status: 403 },
      { name: "POST /api/keys/:id/credits (admin only)", method: "POST", path: (ids) => `/api/keys/${ids.keyId}/credits`, json: () => ({ credits: 1000, reason: "for me" }), status: 403 },
      { name: "PATCH /api/admin/users/:id (admin only)", method: "PATCH", path: (ids) => `/api/admin/users/${ids.userId}`, json: () => ({ status: "disabled" }), status: 403 },
    ];

    const idsOfB = (): Ids => ({ keyId: alertingKeyB.id, alertId: alertIdB, userId: analystB.id, token: tokenB });
    const idsOfNothing = (): Ids => ({ keyId: `key_${unique()}`, alertId: "999999999", userId: `usr_${unique()}`, token: tokenB });

    /** What B (and the world) can observe of B's keys, alert and budget. */
    const stateOfB = async () => ({
      keys: await client.keyList(analystB),
      alertSettings: (await api(analystB, "GET", `/api/keys/${alertingKeyB.id}/alerts`)).body,
      budget: (await api(analystB, "GET", `/api/keys/${keyB.id}/budget`)).body,
      openAlerts: (await api(analystB, "GET", "/api/alerts")).body,
      me: await client.me(analystB),
    });

    it.each(idRequests)("$name: A gets $status for B's, and B's state is unchanged", async (request) => {
      for (const ids of [idsOfB(), { ...idsOfB(), keyId: keyB.id }]) {
        const before = await stateOfB();
        const answer = await api(analystA, request.method, request.path(ids), request.json ? { json: request.json(ids) } : {});
        const error = expectApiError(answer, request.status, request.status === 404 ? "not_found" : "forbidden");
        expect(answer.text, "no token in the refusal").not.toMatch(/"token"/);
        expect(await stateOfB(), `B's keys, alert and budget after A's ${request.name}`).toEqual(before);

        if (request.status === 404) {
          // Exactly the answer for an id that does not exist: nothing to learn by probing.
          const nothing = idsOfNothing();
          const probe = await api(analystA, request.method, request.path(nothing), request.json ? { json: request.json(nothing) } : {});
          expect({ status: probe.status, body: probe.body }).toEqual({ status: answer.status, body: { error } });
        }
      }
    });

    it("leaves A's own account as it was: no console key taken over, allowance untouched", async () => {
      const account = await client.me(analystA);
      expect(account.consoleKeyId).toBeNull();
      expect(account.creditAllowance).toBe(1000 - 100);
    });

    it("A's own lists show nothing of B: keys, alerts, usage, recent lookups", async () => {
      const keys = await client.keyList(analystA);
      expect(keys.map((key) => key.id)).toEqual([keyA.id]);
      for (const path of ["/api/alerts", "/api/usage/events?limit=200", "/api/usage/summary?groupBy=key", "/api/console/recent?limit=50", "/api/usage/export"]) {
        const answer = await api(analystA, "GET", path);
        expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(200);
        for (const id of [keyB.id, alertingKeyB.id, analystB.id]) expect(answer.text, `${path} mentions B's ${id}`).not.toContain(id);
      }
    });

    it("happy path: A reaches A's own key on the same routes, and the admin reaches B's", async () => {
      for (const path of [`/api/keys/${keyA.id}`, `/api/keys/${keyA.id}/alerts`, `/api/keys/${keyA.id}/budget`, `/api/usage/summary?keyId=${keyA.id}`]) {
        expect((await api(analystA, "GET", path)).status, path).toBe(200);
      }
      expect((await client.keyOf(admin, keyB.id)).ownerId).toBe(analystB.id);
      expect((await api(admin, "GET", `/api/usage/events?keyId=${keyB.id}`)).status).toBe(200);
    });

    it("B's keys still work with their tokens, unrolled and unrevoked", async () => {
      const answer = await client.followers(tokenB);
      expect(answer.status, answer.text.slice(0, 200)).toBe(200);
      const key = await client.keyOf(analystB, keyB.id);
      expect({ status: key.status, tokenHint: key.tokenHint }).toEqual({ status: "active", tokenHint: keyB.tokenHint });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe("admin routes refuse analysts (403 forbidden) and change nothing", () => {
    type AdminRequest = { name: string; method: string; path: () => string; json?: () => unknown; raw?: string };
    const adminRequests: AdminRequest[] = [
      { name: "GET /api/admin/users", method: "GET", path: () => "/api/admin/users" },
      {
        name: "POST /api/admin/users (a valid new admin)",
        method: "POST",
        path: () => "/api/admin/users",
        json: () => ({ email: `sneaky-${unique()}@example.test`, name: "Sneaky", role: "admin", password: "a perfectly good password", creditAllowance: 0 }),
      },
      { name: "PATCH /api/admin/users/:self (raise own allowance)", method: "PATCH", path: () => `/api/admin/users/${analystA.id}`, json: () => ({ creditAllowance: 1_000_000_000 }) },
      { name: "PATCH /api/admin/users/:other (reset a password)", method: "PATCH", path: () => `/api/admin/users/${analystB.id}`, json: () => ({ password: "taken over password 123" }) },
      { name: "GET /api/admin/audit", method: "GET", path: () => "/api/admin/audit" },
      { name: "POST /api/keys/:own/credits (top up own key)", method: "POST", path: () => `/api/keys/${keyA.id}/credits`, json: () => ({ credits: 1_000_000, reason: "free credits" }) },
      { name: "GET /api/keys?scope=all", method: "GET", path: () => "/api/keys?scope=all" },
      { name: "GET /api/admin/upstream", method: "GET", path: () => "/api/admin/upstream" },
      { name: "PUT /api/admin/upstream", method: "PUT", path: () => "/api/admin/upstream", json: () => ({}) },
      { name: "POST /api/admin/import", method: "POST", path: () => "/api/admin/import?name=snapshot.ndjson", raw: "{}\n" },
      { name: "GET /api/usage/summary?scope=all", method: "GET", path: () => "/api/usage/summary?scope=all" },
      { name: "GET /api/usage/events?scope=all", method: "GET", path: () => "/api/usage/events?scope=all" },
      { name: "GET /api/usage/export?scope=all", method: "GET", path: () => "/api/usage/export?scope=all" },
    ];

    it.each(adminRequests)("$name → 403", async (request) => {
      const auditBefore = await client.newestAuditId(admin);
      const usersBefore = await client.users(admin);
      const keyBefore = await client.keyOf(analystA, keyA.id);
      const answer = await api(analystA, request.method, request.path(), {
        ...(request.json ? { json: request.json() } : {}),
        ...(request.raw !== undefined ? { raw: request.raw, headers: { "Content-Type": "application/x-ndjson" } } : {}),
      });
      expectApiError(answer, 403, "forbidden");
      expect(await client.newestAuditId(admin), "no audit entry: nothing was changed").toBe(auditBefore);
      expect(await client.users(admin)).toEqual(usersBefore);
      expect(await client.keyOf(analystA, keyA.id)).toEqual(keyBefore);
    });

    it("the analyst's own account is what the admin made it", async () => {
      const account = await client.me(analystA);
      expect({ role: account.role, creditAllowance: account.creditAllowance }).toEqual({ role: "analyst", creditAllowance: 900 });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe("without a valid session", () => {
    const everyRoute: [method: string, path: string][] = [
      ["GET", "/api/me"],
      ["POST", "/api/me/password"],
      ["DELETE", "/api/me/sessions"],
      ["GET", "/api/me/provider-key"],
      ["GET", "/api/keys"],
      ["POST", "/api/keys"],
      ["GET", "/api/keys/key_x"],
      ["DELETE", "/api/keys/key_x"],
      ["POST", "/api/keys/key_x/roll"],
      ["POST", "/api/keys/key_x/console"],
      ["POST", "/api/keys/key_x/credits"],
      ["GET", "/api/keys/key_x/alerts"],
      ["PUT", "/api/keys/key_x/budget"],
      ["GET", "/api/alerts"],
      ["POST", "/api/alerts/1/ack"],
      ["GET", "/api/admin/users"],
      ["POST", "/api/admin/users"],
      ["PATCH", "/api/admin/users/usr_x"],
      ["GET", "/api/admin/audit"],
      ["GET", "/api/admin/upstream"],
      ["POST", "/api/admin/import"],
      ["GET", "/api/console/lookup/followers?userid=2000000002"],
      ["GET", "/api/console/meter"],
      ["GET", "/api/console/recent"],
      ["GET", "/api/usage/summary"],
      ["GET", "/api/usage/events"],
      ["GET", "/api/usage/export"],
    ];

    it.each(everyRoute)("%s %s → 401 unauthenticated, with no cookie or a forged one", async (method, path) => {
      expectApiError(await api(null, method, path, method === "GET" ? {} : { json: {} }), 401, "unauthenticated");
      const forged: Session = { email: "forger", password: "", cookie: `${SESSION_COOKIE}=${admin.rawSessionToken.slice(0, -8)}AAAAAAAA`, rawSessionToken: "" };
      expectApiError(await api(forged, method, path, method === "GET" ? {} : { json: {} }), 401, "unauthenticated");
    });

    it("signing out everywhere ends every session of that user at once", async () => {
      const user = await client.analyst(admin, "sessions");
      const other = await client.signIn(user.email, user.password);
      expect((await api(other, "GET", "/api/me")).status).toBe(200);
      expect((await api(user, "DELETE", "/api/me/sessions")).status).toBe(200);
      expectApiError(await api(user, "GET", "/api/me"), 401, "unauthenticated");
      expectApiError(await api(other, "GET", "/api/me"), 401, "unauthenticated");
    });

    it("disabling a user ends their sessions and their keys at once; they cannot sign in", async () => {
      const user = await client.analyst(admin, "disabled");
      const { token } = await client.createKey(user, { credits: 10 });
      expect((await client.followers(token)).status).toBe(200);

      expect((await api(admin, "PATCH", `/api/admin/users/${user.id}`, { json: { status: "disabled" } })).status).toBe(200);
      expectApiError(await api(user, "GET", "/api/me"), 401, "unauthenticated");
      const lookup = await client.followers(token);
      expect({ status: lookup.status, body: lookup.body }).toMatchObject({ status: 401, body: { code: 401, message: messages.keyInvalid } });
      const attempt = await client.signInAttempt(user.email, user.password);
      expect(attempt.error, "the right password of a disabled account").toBe(INVALID_CREDENTIALS);
      expectNoSession(attempt, "disabled account");
    });

    it("the session cookie is HttpOnly and SameSite", async () => {
      const attempt = await client.signInAttempt(analystA.email, analystA.password);
      const line = must(attempt.setCookies.find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`)), "Set-Cookie of the session");
      expect(line).toMatch(/;\s*HttpOnly/i);
      expect(line).toMatch(/;\s*SameSite=(Lax|Strict)/i);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe("sign-in", () => {
    it("wrong password, unknown account, other letter case and a disabled account get the one same answer", async () => {
      const attempts = {
        wrongPassword: await client.signInAttempt(analystA.email, `${analystA.password}x`),
        unknownAccount: await client.signInAttempt(`nobody-${unique()}@example.test`, analystA.password),
        emptyPassword: await client.signInAttempt(`nobody-${unique()}@example.test`, " "),
        shoutedEmail: await client.signInAttempt(analystA.email.toUpperCase(), `${analystA.password}x`),
        tooLongPassword: await client.signInAttempt(analystA.email, "p".repeat(10_000)),
      };
      for (const [label, attempt] of Object.entries(attempts)) {
        expect({ status: attempt.status, error: attempt.error, url: attempt.url }, label).toEqual({
          status: attempts.wrongPassword.status,
          error: INVALID_CREDENTIALS,
          url: attempts.wrongPassword.url,
        });
        expectNoSession(attempt, label);
      }
      // A's failures above are forgiven by a success.
      await client.signIn(analystA.email, analystA.password);
    });

    it("takes about as long for an unknown account as for a wrong password (median of 5, within 3×)", async () => {
      const known = await client.analyst(admin, "timing");
      // The first unknown account makes the server compute its decoy hash once: not measured.
      await client.signInAttempt(`warm-up-${unique()}@example.test`, "a wrong password");
      const unknownEmail = `nobody-${unique()}@example.test`;
      const wrong: number[] = [];
      const unknown: number[] = [];
      // Interleaved, so load on the machine hits both series alike.
      for (let round = 0; round < 5; round += 1) {
        const wrongAttempt = await client.signInAttempt(known.email, `wrong password ${round}`);
        const unknownAttempt = await client.signInAttempt(unknownEmail, `wrong password ${round}`);
        expect([wrongAttempt.error, unknownAttempt.error]).toEqual([INVALID_CREDENTIALS, INVALID_CREDENTIALS]);
        wrong.push(wrongAttempt.elapsedMs);
        unknown.push(unknownAttempt.elapsedMs);
      }
      const ratio = Math.max(median(wrong), median(unknown)) / Math.min(median(wrong), median(unknown));
      expect(ratio, `median wrong password ${median(wrong).toFixed(0)} ms vs unknown account ${median(unknown).toFixed(0)} ms`).toBeLessThan(3);
    });

    it("trips after 5 failures for one account: the 6th attempt, even with the right password, gets a readable refusal", async () => {
      const victim = await client.analyst(admin, "rate-limited");
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        expect((await client.signInAttempt(victim.email, `guess ${attempt}`)).error, `failure ${attempt}`).toBe(INVALID_CREDENTIALS);
      }
      const sixth = await client.signInAttempt(victim.email, victim.password);
      expect(sixth.error).toMatch(TOO_MANY_ATTEMPTS);
      expectNoSession(sixth, "6th attempt");
      // The account is the email, whatever its letter case or surrounding spaces.
      const variant = await client.signInAttempt(`  ${victim.email.toUpperCase()} `, victim.password);
      expect(variant.error).toMatch(TOO_MANY_ATTEMPTS);
      expectNoSession(variant, "6th attempt in capitals");
      // Other accounts are not locked out by it.
      await client.signIn(analystA.email, analystA.password);
      // The session the victim already had keeps working.
      expect((await api(victim, "GET", "/api/me")).status).toBe(200);
    });

    it("limits unknown accounts the same way, so the limit does not reveal who exists", async () => {
      const email = `nobody-${unique()}@example.test`;
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        expect((await client.signInAttempt(email, `guess ${attempt}`)).error).toBe(INVALID_CREDENTIALS);
      }
      expect((await client.signInAttempt(email, "guess 6")).error).toMatch(TOO_MANY_ATTEMPTS);
    });

    it("starts no session for a credentials POST without the CSRF token", async () => {
      // A login-CSRF attempt: the right credentials, posted without the double-submit token.
      const attempt = await client.signInAttempt(analystA.email, analystA.password, { csrf: "omit" });
      expectNoSession(attempt, "no CSRF token");
      expect(new URL(must(attempt.url, "where next-auth sends the browser"), target.baseUrl).searchParams.get("csrf")).toBe("true");
    });
  });

  // -------------------------------------------------------------------------------------------
  describe("cross-site requests (CSRF)", () => {
    const crossSite: [label: string, headers: Record<string, string>][] = [
      ["Origin: https://evil.example", { Origin: EVIL_ORIGIN }],
      ["Origin: null (sandboxed frame, data: URL)", { Origin: "null" }],
      ["the app's host under https (another origin)", { Origin: target.baseUrl.replace("http://", "https://") }],
      ["the app's origin as a prefix of another host", { Origin: `${target.baseUrl}.evil.example` }],
      ["no Origin, Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
      ["no Origin, Sec-Fetch-Site: same-site", { "Sec-Fetch-Site": "same-site" }],
      ["a form post (text/plain) from evil.example", { Origin: EVIL_ORIGIN, "Content-Type": "text/plain" }],
    ];

    it.each(crossSite)("POST /api/keys with %s → 403 cross_origin, and no key is created", async (_label, headers) => {
      const before = await client.keyList(analystA);
      const allowance = (await client.me(analystA)).creditAllowance;
      const answer = await api(analystA, "POST", "/api/keys", { json: { name: "csrf", credits: 1, qpsLimit: 1 }, headers });
      expectApiError(answer, 403, "cross_origin");
      expect(await client.keyList(analystA)).toEqual(before);
      expect((await client.me(analystA)).creditAllowance).toBe(allowance);
    });

    it("refuses every other mutation from another origin before anything else (code cross_origin, nothing changed)", async () => {
      const victim = await client.analyst(admin, "csrf-victim");
      const { key } = await client.createKey(victim, { credits: 10 });
      const auditBefore = await client.newestAuditId(admin);
      const keysBefore = await client.keyList(victim);
      const mutations: [method: string, path: string, json: unknown][] = [
        ["DELETE", `/api/keys/${key.id}`, undefined],
        ["POST", `/api/keys/${key.id}/roll`, { grace: "none" }],
        ["POST", `/api/keys/${key.id}/console`, {}],
        ["POST", `/api/keys/${key.id}/credits`, { credits: 5, reason: "csrf top-up" }],
        ["PUT", `/api/keys/${key.id}/alerts`, { webhookUrl: "https://evil.example/hook" }],
        ["PUT", `/api/keys/${key.id}/budget`, { dailyCreditCap: 0 }],
        ["POST", "/api/alerts/1/ack", undefined],
        ["POST", "/api/me/password", { currentPassword: victim.password, newPassword: "attacker chosen password" }],
        ["DELETE", "/api/me/sessions", undefined],
        ["PUT", "/api/me/provider-key", { key: "attacker-provider-key" }],
        ["DELETE", "/api/me/provider-key", undefined],
        ["POST", "/api/admin/users", { email: "x@example.test", name: "x", role: "admin", password: "attacker password 1", creditAllowance: 0 }],
        ["PATCH", `/api/admin/users/${victim.id}`, { creditAllowance: 0 }],
        ["PUT", "/api/admin/upstream", {}],
        ["POST", "/api/admin/import", undefined],
      ];
      for (const [method, path, json] of mutations) {
        expectApiError(await api(victim, method, path, { json, headers: { Origin: EVIL_ORIGIN } }), 403, "cross_origin");
      }
      expect(await client.keyList(victim)).toEqual(keysBefore);
      expect(await client.newestAuditId(admin)).toBe(auditBefore);
      expect((await api(victim, "GET", "/api/me")).status, "the victim is still signed in").toBe(200);
      await client.signIn(victim.email, victim.password);
    });

    it("happy path: the app's own origin, Sec-Fetch-Site same-origin, and scripts without either are accepted", async () => {
      const accepted: Record<string, string>[] = [{ Origin: target.baseUrl }, { "Sec-Fetch-Site": "same-origin" }, {}];
      for (const headers of accepted) {
        const answer = await api(analystA, "POST", "/api/keys", { json: { name: `same origin ${unique()}`, credits: 0, qpsLimit: 1 }, headers });
        expect(answer.status, `${JSON.stringify(headers)}: ${answer.text.slice(0, 200)}`).toBe(201);
        client.tokenOf(answer);
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe("a key's token is sent once", () => {
    it("appears in the creation answer only; a roll answers the new token only; no later answer has either", async () => {
      const created = await api(analystB, "POST", "/api/keys", { json: { name: `once ${unique()}`, credits: 20, qpsLimit: 10 } });
      expect(created.status).toBe(201);
      const first = client.tokenOf(created);
      const keyId = (created.body as IssuedKey).key.id;
      expect((await client.followers(first)).status).toBe(200);

      const rolled = await api(analystB, "POST", `/api/keys/${keyId}/roll`, { json: { grace: "1h" } });
      expect(rolled.status, rolled.text).toBe(200);
      const second = client.tokenOf(rolled);
      expect(second).not.toBe(first);
      expect(rolled.text, "the roll answer").not.toContain(first);
      expect(Object.keys(rolled.body as object).sort()).toEqual(["key", "token"]);

      // The console adopts the key by its pasted token: the answer does not echo it.
      const adopted = await api(analystB, "POST", `/api/keys/${keyId}/console`, { json: { token: second } });
      expect(adopted.status, adopted.text).toBe(200);
      expect((adopted.body as { key: KeyView }).key.isConsoleKey).toBe(true);
      expect((await api(analystB, "GET", "/api/console/lookup/followers?userid=2000000002")).status).toBe(200);

      const readers: [Session, string][] = [
        [analystB, "/api/keys"],
        [analystB, `/api/keys/${keyId}`],
        [analystB, "/api/me"],
        [analystB, "/api/console/meter"],
        [analystB, "/api/console/recent"],
        [analystB, `/api/keys/${keyId}/alerts`],
        [analystB, `/api/keys/${keyId}/budget`],
        [analystB, `/api/usage/events?keyId=${keyId}`],
        [analystB, `/api/usage/summary?keyId=${keyId}&groupBy=day,key`],
        [analystB, `/api/usage/export?keyId=${keyId}`],
        [admin, "/api/keys?scope=all"],
        [admin, `/api/keys/${keyId}`],
        [admin, "/api/admin/audit?limit=200"],
        [admin, "/api/admin/users"],
      ];
      for (const [session, path] of readers) {
        const answer = await api(session, "GET", path);
        expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(200);
      }
      // The suite-wide audit of every answer so far runs in the last test; this key's is checked here too.
      for (const token of [first, second]) {
        const carriers = client.transcript.filter((answer) => answer.text.includes(token)).map((answer) => answer.label);
        expect(carriers, "answers that carry the token").toHaveLength(1);
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe("bad input on every JSON route: 400 {error:{code,message}}, nothing written", () => {
    const INVALID_JSON = ['{"name":', "{name: 'x'}", "not json", "[1,", "\u0000"];
    type BadBody = { label: string; json?: unknown; raw?: string };
    const badBodies = (cases: [label: string, json: unknown][]): BadBody[] => [
      ...cases.map(([label, json]) => ({ label, json })),
      ...INVALID_JSON.map((raw) => ({ label: `invalid JSON ${JSON.stringify(raw)}`, raw })),
    ];

    /** Sends each case, then each invalid JSON text: every one must be refused with 400. */
    const sendAll = async (session: Session, method: string, path: string, cases: [label: string, json: unknown][]) => {
      for (const body of badBodies(cases)) {
        const answer = await api(session, method, path, body.raw !== undefined ? { raw: body.raw } : { json: body.json });
        const error = expectApiError(answer, 400);
        expect(error.code, `${method} ${path} ${body.label}: ${error.message}`).toMatch(body.raw !== undefined ? /^invalid_json$/ : /^invalid_request$/);
      }
    };

    const name = "a key";
    const newKeyCases: [string, unknown][] = [
      ["JSON null", null],
      ["a JSON array", [{ name, credits: 1 }]],
      ["a JSON string", "name"],
      ["no fields", {}],
      ["no name", { credits: 1 }],
      ["name of the wrong type", { name: 42, credits: 1 }],
      ["empty name", { name: "", credits: 1 }],
      ["name of spaces", { name: "    ", credits: 1 }],
      ["name of 101 characters", { name: "n".repeat(101), credits: 1 }],
      ["name of 100 000 characters", { name: "n".repeat(100_000), credits: 1 }],
      ["no credits", { name }],
      ["negative credits", { name, credits: -1 }],
      ["fractional credits", { name, credits: 1.5 }],
      ["credits as text", { name, credits: "10" }],
      ["credits above 1e9", { name, credits: 1_000_000_001 }],
      ["credits null", { name, credits: null }],
      ["qpsLimit 0", { name, credits: 1, qpsLimit: 0 }],
      ["negative qpsLimit", { name, credits: 1, qpsLimit: -5 }],
      ["qpsLimit 1001", { name, credits: 1, qpsLimit: 1001 }],
      ["qpsLimit as text", { name, credits: 1, qpsLimit: "5" }],
      ["expiry in the past", { name, credits: 1, expiresAt: "2001-01-01T00:00:00Z" }],
      ["expiry not a date", { name, credits: 1, expiresAt: "tomorrow" }],
      ["expiry as a number", { name, credits: 1, expiresAt: 4102444800 }],
      ["useForConsole as text", { name, credits: 1, useForConsole: "yes" }],
    ];

    it("POST /api/keys", async () => {
      const keysBefore = await client.keyList(analystA);
      const meBefore = await client.me(analystA);
      const auditBefore = await client.newestAuditId(admin);
      await sendAll(analystA, "POST", "/api/keys", newKeyCases);
      // A number too large for any integer (JSON 1e400 parses as Infinity).
      const infinite = await api(analystA, "POST", "/api/keys", { raw: '{"name":"x","credits":1e400}' });
      expectApiError(infinite, 400);
      // More credits than the allowance is a rule, not a shape problem: 422, and still nothing written.
      expectApiError(await api(analystA, "POST", "/api/keys", { json: { name, credits: meBefore.creditAllowance + 1 } }), 422, "key_rule");
      expect(await client.keyList(analystA)).toEqual(keysBefore);
      expect(await client.me(analystA)).toEqual(meBefore);
      expect(await client.newestAuditId(admin)).toBe(auditBefore);
    });

    it("POST /api/keys/:id/roll", async () => {
      const before = await client.keyOf(analystA, keyA.id);
      const auditBefore = await client.newestAuditId(admin);
      await sendAll(analystA, "POST", `/api/keys/${keyA.id}/roll`, [
        ["no grace", {}],
        ["grace 2h", { grace: "2h" }],
        ["grace as a number", { grace: 3600 }],
        ["grace null", { grace: null }],
        ["grace NONE", { grace: "NONE" }],
      ]);
      expect(await client.keyOf(analystA, keyA.id)).toEqual(before);
      expect(await client.newestAuditId(admin)).toBe(auditBefore);
    });

    it("POST /api/keys/:id/credits (admin)", async () => {
      const before = await client.keyOf(admin, keyA.id);
      const auditBefore = await client.newestAuditId(admin);
      const reason = "support ticket 42";
      await sendAll(admin, "POST", `/api/keys/${keyA.id}/credits`, [
        ["no fields", {}],
        ["zero credits", { credits: 0, reason }],
        ["negative credits", { credits: -100, reason }],
        ["fractional credits", { credits: 1.5, reason }],
        ["credits as text", { credits: "10", reason }],
        ["credits above 1e9", { credits: 1_000_000_001, reason }],
        ["no reason", { credits: 10 }],
        ["reason of 2 characters", { credits: 10, reason: "ok" }],
        ["reason of spaces", { credits: 10, reason: "      " }],
        ["reason of 501 characters", { credits: 10, reason: "r".repeat(501) }],
        ["reason as a number", { credits: 10, reason: 12345 }],
      ]);
      expect(await client.keyOf(admin, keyA.id)).toEqual(before);
      expect(await client.newestAuditId(admin)).toBe(auditBefore);
    });

    it("POST /api/keys/:id/console", async () => {
      const meBefore = await client.me(analystA);
      await sendAll(analystA, "POST", `/api/keys/${keyA.id}/console`, [
        ["token as a number", { token: 12345 }],
        ["token of 501 characters", { token: "t".repeat(501) }],
      ]);
      // A token of another key is a rule problem (422), and the console key stays as it was.
      expectApiError(await api(analystA, "POST", `/api/keys/${keyA.id}/console`, { json: { token: tokenB } }), 422, "key_rule");
      expect(await client.me(analystA)).toEqual(meBefore);
    });

    it("PUT /api/keys/:id/alerts and /budget", async () => {
      const alertsBefore = (await api(analystA, "GET", `/api/keys/${keyA.id}/alerts`)).body;
      const budgetBefore = (await api(analystA, "GET", `/api/keys/${keyA.id}/budget`)).body;
      await sendAll(analystA, "PUT", `/api/keys/${keyA.id}/alerts`, [
        ["threshold 0", { thresholdCredits: 0 }],
        ["negative threshold", { thresholdCredits: -1 }],
        ["threshold as text", { thresholdCredits: "5" }],
        ["100 percent", { thresholdPercent: 100 }],
        ["both thresholds", { thresholdCredits: 5, thresholdPercent: 5 }],
        ["plain-http webhook elsewhere", { webhookUrl: "http://evil.example/hook" }],
        ["metadata-address webhook", { webhookUrl: "https://169.254.169.254/latest/meta-data" }],
        ["javascript: webhook", { webhookUrl: "javascript:alert(1)" }],
        ["webhook with credentials", { webhookUrl: "https://user:pass@example.test/hook" }],
        ["webhook of 2001 characters", { webhookUrl: `https://example.test/${"a".repeat(1990)}` }],
      ]);
      await sendAll(analystA, "PUT", `/api/keys/${keyA.id}/budget`, [
        ["no cap field", {}],
        ["negative cap", { dailyCreditCap: -1 }],
        ["fractional cap", { dailyCreditCap: 2.5 }],
        ["cap as text", { dailyCreditCap: "10" }],
      ]);
      expect((await api(analystA, "GET", `/api/keys/${keyA.id}/alerts`)).body).toEqual(alertsBefore);
      expect((await api(analystA, "GET", `/api/keys/${keyA.id}/budget`)).body).toEqual(budgetBefore);
    });

    it("POST /api/admin/users and PATCH /api/admin/users/:id", async () => {
      const usersBefore = await client.users(admin);
      const auditBefore = await client.newestAuditId(admin);
      const valid = { email: `new-${unique()}@example.test`, name: "New analyst", role: "analyst", password: "a long enough password", creditAllowance: 10 };
      await sendAll(admin, "POST", "/api/admin/users", [
        ["no fields", {}],
        ["not an email", { ...valid, email: "not-an-email" }],
        ["email of 321+ characters", { ...valid, email: `${"e".repeat(320)}@example.test` }],
        ["email as a number", { ...valid, email: 7 }],
        ["no name", { ...valid, name: undefined }],
        ["name of 101 characters", { ...valid, name: "n".repeat(101) }],
        ["role root", { ...valid, role: "root" }],
        ["password of 11 characters", { ...valid, password: "elevenchars" }],
        ["password of 201 characters", { ...valid, password: "p".repeat(201) }],
        ["negative allowance", { ...valid, creditAllowance: -1 }],
        ["fractional allowance", { ...valid, creditAllowance: 1.5 }],
        ["allowance as text", { ...valid, creditAllowance: "10" }],
        ["an unknown field", { ...valid, isSuperuser: true }],
      ]);
      await sendAll(admin, "PATCH", `/api/admin/users/${analystA.id}`, [
        ["no change", {}],
        ["status gone", { status: "gone" }],
        ["short password", { password: "short" }],
        ["negative allowance", { creditAllowance: -1 }],
        ["allowance as text", { creditAllowance: "1000" }],
        ["a role change (not a field)", { role: "admin" }],
        ["a valid change plus an unknown field", { creditAllowance: 5, role: "admin" }],
      ]);
      expect(await client.users(admin)).toEqual(usersBefore);
      expect(await client.newestAuditId(admin)).toBe(auditBefore);
      expect(await api(admin, "PATCH", `/api/admin/users/usr_${unique()}`, { json: { creditAllowance: 1 } })).toMatchObject({ status: 404 });
    });

    it("POST /api/me/password", async () => {
      const auditBefore = await client.newestAuditId(admin);
      await sendAll(analystA, "POST", "/api/me/password", [
        ["no fields", {}],
        ["no new password", { currentPassword: analystA.password }],
        ["new password of 11 characters", { currentPassword: analystA.password, newPassword: "elevenchars" }],
        ["new password of 201 characters", { currentPassword: analystA.password, newPassword: "p".repeat(201) }],
        ["current password as a number", { currentPassword: 1234, newPassword: "a long enough password" }],
        ["an unknown field", { currentPassword: analystA.password, newPassword: "a long enough password", email: "x@example.test" }],
      ]);
      const wrongCurrent = await api(analystA, "POST", "/api/me/password", { json: { currentPassword: "not the password", newPassword: "a long enough password" } });
      expectApiError(wrongCurrent, 400, "wrong_password");
      expect(await client.newestAuditId(admin)).toBe(auditBefore);
      // The password is the old one still.
      analystA = { ...analystA, ...(await client.signIn(analystA.email, analystA.password)) };
    });

    it("JSON routes of other features answer invalid JSON the same way", async () => {
      await sendAll(admin, "PUT", "/api/admin/upstream", []);
      await sendAll(analystA, "PUT", "/api/me/provider-key", []);
    });

    it.each([
      ["/api/keys?scope=everything"],
      ["/api/admin/audit?limit=0"],
      ["/api/admin/audit?limit=201"],
      ["/api/admin/audit?before=-1"],
      ["/api/admin/audit?before=abc"],
      ["/api/console/recent?limit=0"],
      ["/api/console/recent?operations=drop_tables"],
      ["/api/usage/events?limit=0"],
      ["/api/usage/events?status=999x"],
      ["/api/usage/summary?from=yesterday"],
      ["/api/usage/summary?from=2030-01-02&to=2030-01-01"],
    ])("GET %s → 400", async (path) => {
      expectApiError(await api(admin, "GET", path), 400);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe("abuse of allowances and addresses", () => {
    it("parallel key creations cannot spend more than the allowance", async () => {
      const spender = await client.analyst(admin, "spender", 1000);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => api(spender, "POST", "/api/keys", { json: { name: `parallel ${index}`, credits: 200, qpsLimit: 1 } })),
      );
      const created = answers.filter((answer) => answer.status === 201);
      for (const answer of created) client.tokenOf(answer);
      for (const answer of answers.filter((item) => item.status !== 201)) expectApiError(answer, 422, "key_rule");
      expect(created).toHaveLength(5);
      expect((await client.me(spender)).creditAllowance).toBe(0);
      const keys = await client.keyList(spender);
      expect(keys.reduce((sum, key) => sum + key.creditsGranted, 0)).toBe(1000);
    });

    it("the audit log records the address the nearest proxy saw, not one the client wrote into X-Forwarded-For", async () => {
      // Behind the documented load balancer the client's own X-Forwarded-For arrives first and
      // the balancer appends the address it saw: only the last entry is not the client's word.
      const answer = await api(analystA, "POST", "/api/keys", {
        json: { name: `forwarded ${unique()}`, credits: 0, qpsLimit: 1 },
        headers: { "X-Forwarded-For": "198.51.100.66, 203.0.113.9" },
      });
      expect(answer.status, answer.text).toBe(201);
      client.tokenOf(answer);
      const keyId = (answer.body as IssuedKey).key.id;
      const audit = await api(admin, "GET", "/api/admin/audit?limit=20");
      const entry = (audit.body as { entries: { action: string; targetId: string; ip: string }[] }).entries.find(
        (item) => item.action === "key.create" && item.targetId === keyId,
      );
      expect(must(entry, "audit entry of the key").ip).toBe("203.0.113.9");
    });

    it("a forged X-Forwarded-For does not buy a fresh per-IP sign-in budget (100 per 15 min)", async () => {
      // 101 failed sign-ins from one client address, each to a different unknown account (so the
      // per-account limit never applies), each with a different forged first entry.
      const proxySaw = "203.0.113.77";
      const attempts: SignInAnswer[] = [];
      for (let batch = 0; batch < 101; batch += 4) {
        const size = Math.min(4, 101 - batch);
        attempts.push(
          ...(await Promise.all(
            Array.from({ length: size }, (_, index) =>
              client.signInAttempt(`spray-${batch + index}-${unique()}@example.test`, "Password123!", {
                headers: { "X-Forwarded-For": `198.51.${Math.floor((batch + index) / 250)}.${(batch + index) % 250}, ${proxySaw}` },
              }),
            ),
          )),
        );
      }
      const refused = attempts.filter((attempt) => attempt.error !== null && TOO_MANY_ATTEMPTS.test(attempt.error));
      expect(refused.length, "attempts refused by the per-IP limit after 100").toBeGreaterThanOrEqual(1);
    }, 180_000);
  });

  // -------------------------------------------------------------------------------------------
  describe("tokens and secrets after the suite", () => {
    it("every token the suite was issued appears in exactly one answer: the one that issued it", () => {
      expect(client.issued.length).toBeGreaterThan(5);
      for (const { token, answerIndex, label } of client.issued) {
        const signature = token.split(".")[2] ?? token;
        const carriers = client.transcript
          .map((answer, index) => ({ index, label: answer.label, hit: answer.text.includes(token) || answer.text.includes(signature) }))
          .filter((answer) => answer.hit);
        expect(carriers.map((carrier) => carrier.index), `answers carrying the token issued by ${label}: ${carriers.map((c) => c.label).join(", ")}`).toEqual([answerIndex]);
      }
    });

    it("no issued token, password or session appears in the server log", async () => {
      // Let the server's last lines reach the file.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const log = fs.readFileSync(target.logFile, "utf8");
      const leaked = client.secrets.filter(([, secret]) => secret.length >= 16 && log.includes(secret)).map(([label]) => label);
      expect(leaked).toEqual([]);
      expect(client.secrets.length).toBeGreaterThan(10);
    });
  });
});
