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
    // The quick start calls the address the page was reached at, not a fixed localhost:3000.
    const origin = new URL(page.url()).origin;
    await expect(page.getByRole("main").getByText(`${origin}/v1/pinsite/followers?userid=2000000002`)).toBeVisible();
    // The cards name the lookups as the console does.
    await expect(page.getByRole("main").getByText("Followers", { exact: true })).toBeVisible();
    await expect(page.getByRole("main").getByText("Get followers detail")).toHaveCount(0);
    await expect(page.getByRole("main").getByRole("link", { name: /openapi\.json/i }).first()).toHaveAttribute(
      "href",
      "/v1/openapi.json",
    );
    await page.waitForLoadState("networkidle");
    expect(errors).toEqual([]);
  });

  test("points from the demo data set to the user's own data: a sample file to import, the upload page", async ({ page }) => {
    await page.goto("/");
    const pointer = page.getByTestId("your-data");
    await expect(pointer.getByRole("heading", { level: 2, name: "Your own data" })).toBeVisible();
    // The suite's server answers from its store (DATA_SOURCE=store): the import path.
    await expect(pointer).toContainText("samples/my-data.ndjson");
    await expect(pointer).toContainText("docs/operations.md");
    await expect(pointer.getByRole("link", { name: "Upload records (administrators)" })).toHaveAttribute("href", "/admin/upload");
    await expect(pointer.getByRole("link", { name: "Add your provider key" })).toHaveCount(0);
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

  test("an unknown address gets the site's styled 404 with a way back, in light and dark mode", async ({ page }) => {
    for (const colorScheme of colorSchemes) {
      await page.emulateMedia({ colorScheme });
      const response = await page.goto("/no-such-page");
      expect(response?.status()).toBe(404);
      const heading = page.getByRole("heading", { level: 1, name: "Page not found" });
      await expect(heading).toBeVisible();
      // The site's font and colours, not the framework's unstyled page.
      await expect(heading).toHaveCSS("font-family", /inter/i);
      const colors = await page.evaluate(() => {
        const probe = document.createElement("div");
        probe.className = "bg-background";
        document.body.append(probe);
        const site = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return { body: getComputedStyle(document.body).backgroundColor, site };
      });
      expect(colors.body, `body background in ${colorScheme} mode`).toBe(colors.site);
      await expect(page.getByRole("banner").getByRole("link", { name: "Social Lookup" })).toBeVisible();
    }
    await page.getByRole("main").getByRole("link", { name: "Back to the home page" }).click();
    await expect(page).toHaveURL(/\/$/);
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
