import { expect } from "vitest";
import { parseJsonOrUndefined, signInWithPassword } from "@/lib/cli/console-session";
import { delay, randomSecret, type ApiTarget } from "./harness";

/**
 * A console API client as a script uses it: signed in with next-auth's credentials flow (CSRF
 * cookie and token, then the callback), then JSON requests carrying the session cookie.
 */
export type Session = { email: string; cookie: string; id: string };
export type Answer = { status: number; headers: Headers; text: string; body: unknown };

export const consoleClient = (target: ApiTarget) => {
  const signIn = async (email: string, password: string, id = ""): Promise<Session> => {
    const { session } = await signInWithPassword(target.baseUrl, { email, password }, "/batches");
    expect(session, `session cookie for ${email}`).not.toBeNull();
    return { email, id, cookie: session ?? "" };
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
    return { status: response.status, headers: response.headers, text, body: parseJsonOrUndefined(text) };
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

  /** A batch started through the console API (it must answer 201): its id. */
  const startBatch = async (session: Session, body: { operation: string; inputs: readonly string[]; maxCredits: number }): Promise<string> => {
    const created = await api(session, "POST", "/api/batches", body);
    expect(created.status, created.text).toBe(201);
    return (created.body as { id: string }).id;
  };

  /** The batch's view once it is done, polled every 200 ms for 30 s at most (then the last view read). */
  const batchWhenDone = async <View extends { status: string }>(session: Session, id: string): Promise<View | undefined> => {
    let view: View | undefined;
    for (let attempt = 0; attempt < 150 && view?.status !== "done"; attempt += 1) {
      await delay(200);
      view = (await api(session, "GET", `/api/batches/${id}`)).body as View;
    }
    return view;
  };

  return { signIn, api, admin, analyst, consoleKey, creditsOf, startBatch, batchWhenDone };
};
