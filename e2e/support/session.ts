import fs from "node:fs";
import path from "node:path";
import { expect, type Browser, type Page } from "@playwright/test";

/**
 * Signing in for browser specs. The server under test (playwright.config.ts) bootstraps the
 * first administrator into E2E_DATA_DIR/initial-admin.txt; specs sign in as that admin and make
 * sure the console has a key with enough credits, through the console's own API.
 */
export type AdminCredentials = { email: string; password: string };

export const readInitialAdmin = (): AdminCredentials => {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  const text = fs.readFileSync(path.join(dataDir, "initial-admin.txt"), "utf8");
  const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, "m").exec(text)?.[1]?.trim();
  const email = field("email");
  const password = field("password");
  if (!email || !password) throw new Error("initial-admin.txt lacks an email or password line");
  return { email, password };
};

/** The bootstrap admin's email and password (initial-admin.txt of the server under test). */
export const adminCredentials = (): AdminCredentials => readInitialAdmin();

/**
 * Signs in through the sign-in form and waits until the browser has left /signin.
 * Takes `(page, email, password)` or `(page, {email, password})`.
 */
export async function signIn(page: Page, email: string, password: string): Promise<void>;
export async function signIn(page: Page, credentials: AdminCredentials): Promise<void>;
export async function signIn(page: Page, emailOrCredentials: string | AdminCredentials, maybePassword?: string): Promise<void> {
  const { email, password } =
    typeof emailOrCredentials === "string" ? { email: emailOrCredentials, password: maybePassword ?? "" } : emailOrCredentials;
  await page.goto("/signin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname !== "/signin");
}

export type ConsoleKeyOptions = {
  /** The console key must hold at least this many credits; a new key gets 10× (min 100,000). */
  minCredits?: number;
  qpsLimit?: number;
};

type MeterKey = { id: string; creditsRemaining: number; qpsLimit: number };

/** The console key's balance as the meter reads it, or null without a console key. */
export const consoleKeyCredits = async (page: Page): Promise<MeterKey | null> => {
  const response = await page.request.get("/api/console/meter");
  expect(response.status(), "GET /api/console/meter").toBe(200);
  const body = (await response.json()) as { key: MeterKey | null };
  return body.key;
};

/**
 * POSTs JSON from inside the page (same-origin fetch, so the console API's CSRF check passes as
 * in the real UI) and returns the status and the body as text.
 */
export const postFromPage = async (page: Page, path: string, body: unknown): Promise<{ status: number; text: string }> =>
  page.evaluate(
    async ({ path, body }) => {
      const response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    },
    { path, body },
  );

/**
 * Signs in as the bootstrap admin and makes sure the console key has `minCredits` and a
 * `qpsLimit` at least as high as asked; otherwise issues a new console key (same-origin fetch,
 * so the console API's CSRF check passes as in the real UI). Returns the key in use.
 */
export const signInAsAdminWithConsoleKey = async (page: Page, options: ConsoleKeyOptions = {}): Promise<MeterKey> => {
  const minCredits = options.minCredits ?? 1000;
  const qpsLimit = options.qpsLimit ?? 1000;
  await signIn(page, readInitialAdmin());
  const current = await consoleKeyCredits(page);
  if (current && current.creditsRemaining >= minCredits && current.qpsLimit >= qpsLimit) return current;

  const input = {
    name: `e2e console key ${new Date().toISOString()}`,
    credits: Math.max(100_000, minCredits * 10),
    qpsLimit,
    useForConsole: true,
  };
  const created = await postFromPage(page, "/api/keys", input);
  expect(created.status, `POST /api/keys: ${created.text}`).toBe(201);
  const key = await consoleKeyCredits(page);
  expect(key, "the new key is the console key").not.toBeNull();
  if (!key) throw new Error("no console key after creating one");
  return key;
};

export type Analyst = AdminCredentials & { id: string; name: string; creditAllowance: number };

/**
 * Creates an analyst through the admin console API (POST /api/admin/users, same-origin fetch of
 * a page signed in as an admin) and returns the new account with its password.
 */
export const createAnalyst = async (
  page: Page,
  options: { email?: string; name?: string; password?: string; creditAllowance?: number } = {},
): Promise<Analyst> => {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const input = {
    email: options.email ?? `analyst-${suffix}@example.test`,
    name: options.name ?? `Analyst ${suffix}`,
    role: "analyst",
    password: options.password ?? `pw-${suffix}-${Math.random().toString(36).slice(2, 12)}`,
    creditAllowance: options.creditAllowance ?? 10_000,
  };
  const created = await postFromPage(page, "/api/admin/users", input);
  expect(created.status, `POST /api/admin/users: ${created.text}`).toBe(201);
  const user = JSON.parse(created.text) as { id: string; email: string; name: string; creditAllowance: number };
  return { id: user.id, email: user.email, name: user.name, password: input.password, creditAllowance: user.creditAllowance };
};

/** A second person's page in a browser context of its own (own cookies), closed when `use` ends. */
export const inOwnContext = async (browser: Browser, use: (page: Page) => Promise<void>): Promise<void> => {
  const context = await browser.newContext();
  try {
    await use(await context.newPage());
  } finally {
    await context.close();
  }
};
