import { expect, test, type Page, type Response } from "@playwright/test";
import { collectErrors, collectPolicyViolations } from "./support/page-errors";
import { adminCredentials, createAnalyst, inOwnContext, signIn, signInAsAdminWithConsoleKey } from "./support/session";

/**
 * The console pages built on the shared page header and sign-in/admin guard: each shows its
 * title (document and heading) and its description; the admin pages answer an analyst with the
 * 404 page, and the pages any signed-in user may open show for an analyst too.
 */
type ConsolePageCase = { path: string; documentTitle: RegExp; heading: string; description: string };

const adminPages: ConsolePageCase[] = [
  { path: "/admin/audit", documentTitle: /Audit log/, heading: "Audit log", description: "Every change to keys, credits and users" },
  { path: "/admin/settings", documentTitle: /Upstream settings/, heading: "Upstream provider", description: "Environment variables win over the values set here." },
  { path: "/admin/upload", documentTitle: /Upload records/, heading: "Upload records", description: "Load a snapshot file into the record store" },
  { path: "/admin/credits", documentTitle: /Credits/, heading: "Credits", description: "Top up any key. Every top-up is recorded" },
  { path: "/admin/workspaces", documentTitle: /Workspaces/, heading: "Workspaces", description: "Every team with its pool, members, refill and shared limit." },
  { path: "/admin/privacy", documentTitle: /Privacy/, heading: "Privacy", description: "Answer a data subject's requests" },
];

const userPages: ConsolePageCase[] = [
  { path: "/keys", documentTitle: /API keys/, heading: "API keys", description: "Keys authenticate calls to /v1." },
  { path: "/usage", documentTitle: /Usage/, heading: "Usage", description: "Where your credits go" },
  { path: "/account/provider-key", documentTitle: /Provider key/, heading: "Provider key", description: "The key of your own account at the data provider." },
  { path: "/followers", documentTitle: /Followers/, heading: "Followers", description: "The followers of a pin-board user, 25 per page." },
  { path: "/publications", documentTitle: /Publications/, heading: "Publications", description: "The publications listed on a professional-network profile, 10 per page." },
];

const expectPage = async (page: Page, { path, documentTitle, heading, description }: ConsolePageCase) => {
  const response = await page.goto(path);
  expect(response?.status(), `status of ${path}`).toBe(200);
  await expect(page).toHaveTitle(documentTitle);
  await expect(page.getByRole("heading", { level: 1, name: heading, exact: true })).toBeVisible();
  await expect(page.getByRole("main").getByText(description).first()).toBeVisible();
};

test.describe("console pages", () => {
  test("an admin sees every page with its title and description", async ({ page }) => {
    await signIn(page, adminCredentials());
    for (const consolePage of [...adminPages, ...userPages]) await expectPage(page, consolePage);
    // The upstream settings list each kind of record's cache TTL, from the kinds table.
    await page.goto("/admin/settings");
    await expect(page.getByRole("main")).toContainText("events 24 h, followers 1 h, publications 24 h; a hit costs the full price");
  });

  test("an analyst gets the 404 page on the admin pages and sees the others", async ({ page, browser }) => {
    await signIn(page, adminCredentials());
    const analyst = await createAnalyst(page, { creditAllowance: 100 });
    await inOwnContext(browser, async (analystPage) => {
      await signIn(analystPage, analyst.email, analyst.password);
      for (const { path, heading } of adminPages) {
        const response = await analystPage.goto(path);
        expect(response?.status(), `status of ${path} for an analyst`).toBe(404);
        await expect(analystPage.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
        await expect(analystPage.getByRole("heading", { level: 1, name: heading, exact: true })).toHaveCount(0);
      }
      for (const consolePage of userPages) await expectPage(analystPage, consolePage);
    });
  });
});

/**
 * The console's Content-Security-Policy: scripts run only with the nonce of their own answer (no
 * 'unsafe-inline'), and every page still hydrates and responds under it, with no violation.
 */
test.describe("Content-Security-Policy", () => {
  /** The answer's script nonce, checked to be on every script the document was sent with. */
  const expectNoncedScripts = async (response: Response | null, path: string): Promise<void> => {
    expect(response, path).not.toBeNull();
    const policy = (await response?.allHeaders())?.["content-security-policy"] ?? "";
    const scriptSrc = policy.split(";").map((directive) => directive.trim()).find((directive) => directive.startsWith("script-src ")) ?? "";
    expect(scriptSrc, `${path}: script-src`).toContain("'strict-dynamic'");
    expect(scriptSrc, `${path}: script-src`).not.toContain("'unsafe-inline'");
    const nonce = /'nonce-([^']+)'/.exec(scriptSrc)?.[1];
    expect(nonce, `${path}: nonce`).toBeTruthy();
    const tags = (await response?.text())?.match(/<script\b[^>]*>/g) ?? [];
    expect(tags.length, `${path}: scripts`).toBeGreaterThan(0);
    for (const tag of tags) expect(tag, path).toContain(` nonce="${nonce ?? ""}"`);
  };

  /** Full page loads of the main frame (a client-side navigation makes none). */
  const countDocumentLoads = (page: Page): { count: number } => {
    const loads = { count: 0 };
    page.on("request", (request) => {
      if (request.resourceType() === "document" && request.frame() === page.mainFrame()) loads.count += 1;
    });
    return loads;
  };

  test("signed out: the sign-in page and the home page run their scripts, with no violation", async ({ page }) => {
    const violations = await collectPolicyViolations(page);
    const errors = collectErrors(page);
    await expectNoncedScripts(await page.goto("/signin"), "/signin");
    // The form's own check (no request) proves the page hydrated.
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByText("Enter your email address.")).toBeVisible();
    await expectNoncedScripts(await page.goto("/"), "/");
    await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("signed in: each console page hydrates, navigates without reloading, and the try-it panel sends, with no violation", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    const violations = await collectPolicyViolations(page);
    // The 404 page's document is a failed request by design.
    const errors = collectErrors(page, { expectFailedRequests: true });
    const consolePages = ["/events", "/followers", "/publications", "/batches", "/keys", "/usage"];
    const nav = page.getByRole("navigation", { name: "Console" });
    for (const [index, path] of consolePages.entries()) {
      await expectNoncedScripts(await page.goto(path), path);
      // The meter's figure comes from a query the browser runs once the shell has hydrated.
      await expect(page.getByTestId("credit-meter").filter({ visible: true })).toHaveAttribute("data-credits-remaining", /^\d+$/);
      const nextPath = consolePages[(index + 1) % consolePages.length] ?? "/events";
      const loads = countDocumentLoads(page);
      await nav.locator(`a[href="${nextPath}"]`).click();
      await page.waitForURL((url) => url.pathname === nextPath);
      expect(loads.count, `${path} → ${nextPath} is a client-side navigation`).toBe(0);
    }

    for (const path of ["/", "/no-such-page"]) {
      await expectNoncedScripts(await page.goto(path), path);
      // Filled in by the header's client code from the session.
      await expect(page.getByRole("banner").getByRole("button", { name: "Sign out" })).toBeVisible();
    }

    const operation = "get_user_publications";
    await expectNoncedScripts(await page.goto(`/api-docs#${operation}`), "/api-docs");
    const form = page.getByTestId(`try-${operation}`);
    await form.getByTestId(`try-${operation}-send-console`).click();
    await expect(form.getByTestId(`try-${operation}-status`)).toHaveText("200 OK");

    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });
});
