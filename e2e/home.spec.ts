import { expect, test, type Page } from "@playwright/test";
import { collectErrors } from "./support/page-errors";

const operationPaths = [
  "/v1/eventsite/event_details",
  "/v1/eventsite/event_details_id",
  "/v1/pinsite/followers",
  "/v1/jobsite/get_user_publications",
] as const;

const colorSchemes = ["light", "dark"] as const;

const screenshotPath = (name: string, scheme: (typeof colorSchemes)[number]) =>
  `test-results/screenshots/${name}-${scheme}.png`;

test.describe("home page", () => {
  test("renders the product heading without console errors", async ({ page }) => {
    const errors = collectErrors(page);
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page).toHaveTitle(/Social Lookup/);
    await expect(page.getByRole("main").getByText("/v1/pinsite/followers?userid=2000000002")).toBeVisible();
    await expect(page.getByRole("main").getByRole("link", { name: /openapi\.json/i }).first()).toHaveAttribute(
      "href",
      "/v1/openapi.json",
    );
    await page.waitForLoadState("networkidle");
    expect(errors).toEqual([]);
  });

  test("links to the API reference, which lists the four operations", async ({ page }) => {
    const errors = collectErrors(page);
    await page.goto("/");
    await page.getByRole("main").getByRole("link", { name: "API reference", exact: true }).click();
    await expect(page).toHaveURL(/\/api-docs$/);
    await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
    for (const operationPath of operationPaths) {
      await expect(page.getByText(operationPath, { exact: true }).first()).toBeVisible();
    }
    await page.waitForLoadState("networkidle");
    expect(errors).toEqual([]);
  });

  for (const colorScheme of colorSchemes) {
    test(`saves full-page screenshots in ${colorScheme} mode`, async ({ page }) => {
      const errors = collectErrors(page);
      await page.emulateMedia({ colorScheme });

      await page.goto("/");
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      await page.screenshot({ path: screenshotPath("home", colorScheme), fullPage: true });

      await page.goto("/api-docs");
      await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      await page.screenshot({ path: screenshotPath("api-docs", colorScheme), fullPage: true });

      expect(errors).toEqual([]);
    });
  }
});
