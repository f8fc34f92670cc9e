import { expect } from "vitest";
import { cookieHeader, parseJsonOrUndefined, setCookiePairs, signInWithPassword } from "@/lib/cli/console-session";
import type { ApiTarget } from "@/tests/api/harness";

/**
 * A browser-like session against a production server for the security suite: sign-in through
 * next-auth's CSRF + credentials callback, JSON calls with the session cookie, sign-out.
 */
export type Session = { email: string; password: string; cookie: string };
export type Answer = { status: number; text: string; body: unknown; headers: Headers };

export const consoleClient = (target: ApiTarget) => {
  const csrf = async (cookie = ""): Promise<{ token: string; cookies: Map<string, string> }> => {
    const response = await fetch(`${target.baseUrl}/api/auth/csrf`, { headers: cookie ? { Cookie: cookie } : {} });
    const cookies = setCookiePairs(response);
    return { token: ((await response.json()) as { csrfToken: string }).csrfToken, cookies };
  };

  const signIn = async (email: string, password: string): Promise<Session> => {
    const { status, session } = await signInWithPassword(target.baseUrl, { email, password });
    expect(session, `a session for ${email} (status ${status})`).not.toBeNull();
    return { email, password, cookie: session ?? "" };
  };

  /** POST /api/auth/signout as the browser's sign-out button does it (CSRF token in the form). */
  const signOut = async (session: Session): Promise<number> => {
    const { token, cookies } = await csrf(session.cookie);
    const response = await fetch(`${target.baseUrl}/api/auth/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: `${session.cookie}; ${cookieHeader(cookies)}` },
      body: new URLSearchParams({ csrfToken: token, callbackUrl: `${target.baseUrl}/signin`, json: "true" }),
    });
    await response.arrayBuffer();
    return response.status;
  };

  const api = async (
    session: Session | null,
    method: string,
    path: string,
    options: { json?: unknown; raw?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
    if (session) headers.Cookie = session.cookie;
    const body = options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
    if (body !== undefined) headers["Content-Type"] ??= "application/json";
    const response = await fetch(`${target.baseUrl}${path}`, { method, headers, body, redirect: "manual" });
    const text = await response.text();
    return { status: response.status, text, body: parseJsonOrUndefined(text), headers: response.headers };
  };

  const admin = () => signIn(target.env.ADMIN_EMAIL ?? "", target.env.ADMIN_PASSWORD ?? "");

  let counter = 0;
  /** A new analyst made by the admin, signed in. */
  const analyst = async (adminSession: Session, label: string, creditAllowance = 1000): Promise<Session & { id: string }> => {
    counter += 1;
    const email = `${label}-${Date.now().toString(36)}-${counter}@example.test`;
    const password = `security suite password ${counter}`;
    const created = await api(adminSession, "POST", "/api/admin/users", {
      json: { email, name: `Analyst ${label}`, role: "analyst", password, creditAllowance },
    });
    expect(created.status, created.text).toBe(201);
    return { ...(await signIn(email, password)), id: (created.body as { id: string }).id };
  };

  return { signIn, signOut, api, admin, analyst };
};

/** `{error: {code, message}}` with a readable message. */
export const expectReadableError = (answer: Answer, status: number, label: string, code?: string) => {
  expect({ status: answer.status, text: answer.text.slice(0, 300) }, label).toMatchObject({ status });
  const error = (answer.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  expect(typeof error?.code, `${label}: ${answer.text.slice(0, 200)}`).toBe("string");
  expect(typeof error?.message, label).toBe("string");
  if (code !== undefined) expect(error?.code, label).toBe(code);
  expect(String(error?.message).length, label).toBeGreaterThan(3);
  expect(String(error?.message), label).not.toMatch(/^[[{]|ZodError|\bat \S+ \(|\[object /);
};
