import { expect, test, type Browser, type Page, type Response } from "@playwright/test";
import { adminCredentials, createAnalyst, signIn } from "./support/session";

/**
 * Signing in and out of the console in a real browser: the way back after sign-in, the one
 * message for every failed attempt, the 404 an analyst gets for admin pages, and a key token
 * that never reaches the browser again once its panel is dismissed.
 */
const INVALID_CREDENTIALS = "Invalid email or password.";

const signInForm = (page: Page) => ({
  email: page.getByLabel("Email"),
  password: page.getByLabel("Password"),
  submit: page.getByRole("button", { name: "Sign in", exact: true }),
  alert: page.getByRole("main").getByRole("alert"),
});

const submitSignIn = async (page: Page, email: string, password: string) => {
  const form = signInForm(page);
  await form.email.fill(email);
  await form.password.fill(password);
  await form.submit.click();
};

const expectSignInPage = async (page: Page, callbackUrl: string) => {
  await expect(page).toHaveURL((url) => url.pathname === "/signin" && url.searchParams.get("callbackUrl") === callbackUrl);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to Social Lookup" })).toBeVisible();
};

/** A fresh browser context (own cookies) for a second person, closed by the caller. */
const newPage = async (browser: Browser): Promise<Page> => (await browser.newContext()).newPage();

test.describe("signing in", () => {
  test("an unauthenticated visit to /keys goes to /signin with the way back, and signing in returns there", async ({ page }) => {
    const admin = adminCredentials();
    await page.goto("/keys");
    await expectSignInPage(page, "/keys");

    await submitSignIn(page, admin.email, `${admin.password}-wrong`);
    await expect(signInForm(page).alert).toHaveText(INVALID_CREDENTIALS);
    await expect(signInForm(page).password, "the password field is cleared").toHaveValue("");
    await expectSignInPage(page, "/keys");

    await submitSignIn(page, `nobody-${Date.now()}@example.test`, "some password of no one");
    await expect(signInForm(page).alert, "an unknown account gets the very same message").toHaveText(INVALID_CREDENTIALS);

    await submitSignIn(page, admin.email, admin.password);
    await expect(page).toHaveURL((url) => url.pathname === "/keys");
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  });

  test("empty fields are explained without a request", async ({ page }) => {
    await page.goto("/signin");
    let authRequests = 0;
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.startsWith("/api/auth/callback")) authRequests += 1;
    });
    await signInForm(page).submit.click();
    await expect(page.getByText("Enter your email address.")).toBeVisible();
    await expect(page.getByText("Enter your password.")).toBeVisible();
    expect(authRequests).toBe(0);
  });

  for (const foreign of ["https://evil.example/steal", "//evil.example/steal", "/\\evil.example"]) {
    test(`a callbackUrl of ${JSON.stringify(foreign)} does not lead off the site`, async ({ page, baseURL }) => {
      const admin = adminCredentials();
      await page.goto(`/signin?callbackUrl=${encodeURIComponent(foreign)}`);
      await submitSignIn(page, admin.email, admin.password);
      await page.waitForURL((url) => url.pathname !== "/signin");
      expect(new URL(page.url()).origin).toBe(new URL(baseURL ?? "").origin);
      expect(new URL(page.url()).pathname).toBe("/events");
    });
  }

  test("signing out ends the session: console pages and the console API want a sign-in again", async ({ page }) => {
    await signIn(page, adminCredentials());
    await page.goto("/keys");
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/signin");

    await page.goto("/keys");
    await expectSignInPage(page, "/keys");
    const me = await page.evaluate(async () => (await fetch("/api/me")).status);
    expect(me, "GET /api/me after signing out").toBe(401);
  });

  test("pages carry the security headers: a CSP with a script nonce, without unsafe-inline scripts or unsafe-eval, that forbids framing, nosniff, same-origin referrers", async ({ page }) => {
    const check = (response: Response | null, label: string) => {
      expect(response, label).not.toBeNull();
      const headers = response?.headers() ?? {};
      const csp = headers["content-security-policy"] ?? "";
      expect(csp, `${label}: CSP`).toContain("frame-ancestors 'none'");
      expect(csp, `${label}: CSP`).not.toContain("unsafe-eval");
      expect(csp, `${label}: CSP`).toMatch(/script-src 'nonce-[A-Za-z0-9+/]+={0,2}' 'strict-dynamic'/);
      expect(csp, `${label}: CSP`).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(headers["x-content-type-options"], label).toBe("nosniff");
      expect(headers["referrer-policy"], label).toBe("same-origin");
    };
    check(await page.goto("/signin"), "/signin");
    await signIn(page, adminCredentials());
    check(await page.goto("/keys"), "/keys");
  });
});

test.describe("roles", () => {
  test("an analyst opening /admin/users gets the 404 page, and the admin API refuses them", async ({ page, browser }) => {
    await signIn(page, adminCredentials());
    const analyst = await createAnalyst(page, { creditAllowance: 100 });

    const analystPage = await newPage(browser);
    try {
      await signIn(analystPage, analyst.email, analyst.password);
      const response = await analystPage.goto("/admin/users");
      expect(response?.status(), "status of /admin/users for an analyst").toBe(404);
      await expect(analystPage.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
      await expect(analystPage.getByRole("heading", { level: 1, name: "Users" })).toHaveCount(0);
      await expect(analystPage.getByText(analyst.email, { exact: true }).first()).toBeVisible();
      expect(await analystPage.content(), "no other account shows up").not.toContain(adminCredentials().email);

      const api = await analystPage.evaluate(async () => {
        const response = await fetch("/api/admin/users");
        return { status: response.status, body: (await response.json()) as unknown };
      });
      expect(api.status, "GET /api/admin/users as an analyst").toBe(403);
      expect(api.body).toMatchObject({ error: { code: "forbidden" } });
    } finally {
      await analystPage.context().close();
    }
  });
});

type SeenResponse = { label: string; body: Buffer };

test.describe("the token of a new key", () => {
  test("reaches the browser only in the POST /api/keys answer: never in the HTML, JS, RSC or JSON sent afterwards", async ({ page }) => {
    test.setTimeout(120_000);
    // Every response of the session, with its body. The body is read on the way in (routing),
    // because Chromium drops the bodies of prefetches once the page navigates away.
    const seen: SeenResponse[] = [];
    const labels: string[] = [];
    page.on("response", (response) => labels.push(`${response.request().method()} ${response.url()} → ${response.status()}`));
    await page.route("**/*", async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const body = await response.body();
      seen.push({ label: `${route.request().method()} ${route.request().url()} → ${response.status()}`, body });
      await route.fulfill({ response, body });
    });

    await signIn(page, adminCredentials());
    await page.goto("/keys");
    await page.getByTestId("new-key-name").fill(`e2e leak check ${Date.now().toString(36)}`);
    await page.getByTestId("new-key-credits").fill("100000");
    await page.getByTestId("new-key-qps").fill("1000");
    // A console key: the server keeps its token sealed and uses it for the console's lookups.
    await page.getByTestId("new-key-console").check();
    const created = page.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/api/keys");
    await page.getByTestId("create-key").click();
    const { token } = (await (await created).json()) as { token: string };
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await expect(page.getByTestId("new-key-token").locator("code")).toHaveText(token);
    await page.getByTestId("token-done").click();
    await expect(page.getByTestId("new-key-token")).toHaveCount(0);
    await page.waitForLoadState("networkidle");

    // What a session does next: reloads, other console pages, a console lookup with that key.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    await page.waitForLoadState("networkidle");
    for (const path of ["/events", "/usage", "/account", "/admin/audit", "/keys"]) {
      await page.goto(path);
      await page.waitForLoadState("networkidle");
    }
    const lookup = await page.evaluate(async () => {
      const response = await fetch("/api/console/lookup/followers?userid=2000000002");
      return response.status;
    });
    expect(lookup, "a console lookup with the console key").toBe(200);
    await page.evaluate(async () => {
      await Promise.all(["/api/keys", "/api/me", "/api/console/meter", "/api/admin/audit"].map(async (path) => (await fetch(path)).text()));
    });
    await page.waitForLoadState("networkidle");

    await page.unrouteAll({ behavior: "wait" });
    const signature = token.split(".")[2] ?? token;
    const containing = seen
      .filter((response) => response.body.includes(token) || response.body.includes(signature))
      .map((response) => response.label);
    expect(containing, "responses that carry the token").toHaveLength(1);
    expect(containing[0]).toMatch(/^POST \S+\/api\/keys → 201$/);

    // The bodies checked are the session's responses: documents, scripts, RSC payloads, JSON.
    const urls = seen.map((response) => response.label);
    const unrouted = labels.filter((label) => !urls.includes(label));
    expect(unrouted, "responses whose body was not checked").toEqual([]);
    expect(urls.filter((label) => /\/_next\/static\/.+\.js → 200$/.test(label)).length, "JS chunks").toBeGreaterThan(0);
    expect(urls.filter((label) => /[?&]_rsc=/.test(label)).length, "RSC payloads").toBeGreaterThan(0);
    expect(urls.filter((label) => /^GET \S+\/keys → 200$/.test(label)).length, "the /keys document").toBeGreaterThan(0);

    expect(await page.content()).not.toContain(token);
    const storage = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
    expect(storage).not.toContain(signature);
    expect(JSON.stringify(await page.context().storageState())).not.toContain(signature);
  });
});
