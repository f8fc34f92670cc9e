import { expect, test, type Page } from "@playwright/test";
import { adminCredentials, createAnalyst, signIn } from "./support/session";

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
  });

  test("an analyst gets the 404 page on the admin pages and sees the others", async ({ page, browser }) => {
    await signIn(page, adminCredentials());
    const analyst = await createAnalyst(page, { creditAllowance: 100 });
    const context = await browser.newContext();
    try {
      const analystPage = await context.newPage();
      await signIn(analystPage, analyst.email, analyst.password);
      for (const { path, heading } of adminPages) {
        const response = await analystPage.goto(path);
        expect(response?.status(), `status of ${path} for an analyst`).toBe(404);
        await expect(analystPage.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
        await expect(analystPage.getByRole("heading", { level: 1, name: heading, exact: true })).toHaveCount(0);
      }
      for (const consolePage of userPages) await expectPage(analystPage, consolePage);
    } finally {
      await context.close();
    }
  });
});
