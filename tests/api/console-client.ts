import { expect } from "vitest";
import { randomSecret, type ApiTarget } from "./harness";

/**
 * A console API client as a script uses it: signed in with next-auth's credentials flow (CSRF
 * cookie and token, then the callback), then JSON requests carrying the session cookie.
 */
const SESSION_COOKIE = "next-auth.session-token";

export type Session = { email: string; cookie: string; id: string };
export type Answer = { status: number; headers: Headers; text: string; body: unknown };

const cookiePairs = (response: Response): [string, string][] =>
  response.headers.getSetCookie().flatMap((line): [string, string][] => {
    const pair = line.split(";")[0] ?? "";
    const at = pair.indexOf("=");
    return at > 0 ? [[pair.slice(0, at), pair.slice(at + 1)]] : [];
  });

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export const consoleClient = (target: ApiTarget) => {
  const signIn = async (email: string, password: string, id = ""): Promise<Session> => {
    const csrf = await fetch(`${target.baseUrl}/api/auth/csrf`);
    const csrfCookies = cookiePairs(csrf);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const response = await fetch(`${target.baseUrl}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Cookie: csrfCookies.map(([name, value]) => `${name}=${value}`).join("; "),
      },
      body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${target.baseUrl}/batches`, json: "true" }),
    });
    await response.arrayBuffer();
    const session = cookiePairs(response).filter(([name]) => name.startsWith(SESSION_COOKIE));
    expect(session.length, `session cookie for ${email}`).toBeGreaterThan(0);
    return { email, id, cookie: session.map(([name, value]) => `${name}=${value}`).join("; ") };
  };

  const api = async (session: Session, method: string, path: string, json?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = { Accept: "application/json", Cookie: session.cookie };
    if (json !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      redirect: "manual",
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseJson(text) };
  };

  const admin = (): Promise<Session> => {
    const email = target.env.ADMIN_EMAIL;
    const password = target.env.ADMIN_PASSWORD;
    if (email === undefined || password === undefined) throw new Error("the target has no configured admin");
    return signIn(email, password);
  };

  /** A new analyst (through the admin API), signed in. */
  const analyst = async (adminSession: Session, label: string, creditAllowance: number): Promise<Session> => {
    const email = `${label}-${Date.now().toString(36)}${randomSecret(6).toLowerCase().replace(/[^a-z0-9]/g, "x")}@example.test`;
    const password = `pw ${randomSecret(20)}`;
    const created = await api(adminSession, "POST", "/api/admin/users", { email, name: `Analyst ${label}`, role: "analyst", password, creditAllowance });
    expect(created.status, created.text).toBe(201);
    return signIn(email, password, (created.body as { id: string }).id);
  };

  /** A key of the session's user, chosen as its console key; the token stays with the server. */
  const consoleKey = async (session: Session, credits: number, qpsLimit: number): Promise<{ id: string; token: string }> => {
    const answer = await api(session, "POST", "/api/keys", { name: `batch key ${randomSecret(6)}`, credits, qpsLimit, useForConsole: true });
    expect(answer.status, answer.text).toBe(201);
    const body = answer.body as { key: { id: string }; token: string };
    return { id: body.key.id, token: body.token };
  };

  const creditsOf = async (session: Session, keyId: string): Promise<number> => {
    const answer = await api(session, "GET", `/api/keys/${keyId}`);
    expect(answer.status, answer.text).toBe(200);
    return (answer.body as { key: { creditsRemaining: number } }).key.creditsRemaining;
  };

  return { signIn, api, admin, analyst, consoleKey, creditsOf };
};
