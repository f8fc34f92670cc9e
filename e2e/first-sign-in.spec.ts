import { expect, test, type Page } from "@playwright/test";
import { adminCredentials, consoleKeyCredits, signIn } from "./support/session";

/**
 * A console that works on first sign-in (docs/operations.md "Demo data set"). This spec runs before
 * every other one (playwright.config.ts: the "first-sign-in" project), against the install
 * `npm start` has just created: demo data, embedded database, a generated admin. Nothing is set up here
 * on purpose.
 */
const FIRST_EVENT = "1000000000000001";
const SMALL_USER = "2000000002";
const PROFILE = "urn:li:member:3000000001";

type KeyView = { id: string; name: string; creditsGranted: number; isConsoleKey: boolean };

const meter = (page: Page) => page.getByTestId("credit-meter").filter({ visible: true });

test.describe.configure({ mode: "serial" });

test.describe("a brand-new demo install", () => {
  test("explains the usage page instead of showing a wall of zeros", async ({ page }) => {
    await signIn(page, adminCredentials());
    await page.goto("/usage");
    const firstUse = page.getByTestId("usage-first-use");
    await expect(firstUse).toBeVisible();
    await expect(firstUse.getByRole("heading", { name: "No requests yet" })).toBeVisible();
    await expect(firstUse).toContainText("credits per day");
    await expect(firstUse.getByRole("link", { name: "Events" })).toHaveAttribute("href", "/events");
    await expect(page.getByTestId("usage-totals")).toHaveCount(0);
    await expect(page.getByTestId("charts-empty")).toHaveCount(0);
  });

  test("gives the bootstrap admin a demo console key, so every lookup page works at once", async ({ page }) => {
    await signIn(page, adminCredentials());
    const keys = await page.request.get("/api/keys");
    expect(keys.status()).toBe(200);
    const { keys: views } = (await keys.json()) as { keys: KeyView[] };
    expect(views.map(({ name, creditsGranted, isConsoleKey }) => ({ name, creditsGranted, isConsoleKey }))).toEqual([
      { name: "Demo key (demo data set)", creditsGranted: 1000, isConsoleKey: true },
    ]);
    expect((await consoleKeyCredits(page))?.creditsRemaining).toBe(1000);

    await page.goto("/events");
    await expect(meter(page)).toHaveAttribute("data-credits-remaining", "1000");
    await page.getByTestId("event-input").fill(FIRST_EVENT);
    await page.getByTestId("event-run").click();
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", FIRST_EVENT);

    await page.goto("/followers");
    await page.getByTestId("followers-input").fill(SMALL_USER);
    await page.getByTestId("followers-run").click();
    await expect(page.getByTestId("follower-row").first()).toBeVisible();

    await page.goto("/publications");
    await page.getByTestId("publications-input").fill(PROFILE);
    await page.getByTestId("publications-run").click();
    await expect(page.getByTestId("publication-item").first()).toBeVisible();

    const remaining = (await consoleKeyCredits(page))?.creditsRemaining ?? 1000;
    expect(remaining).toBeLessThanOrEqual(1000 - 4 - 2 - 1);
  });

  test("shows the figures once the first lookups are made", async ({ page }) => {
    await signIn(page, adminCredentials());
    const remaining = (await consoleKeyCredits(page))?.creditsRemaining ?? 0;
    await page.goto("/usage");
    await expect(page.getByTestId("usage-totals")).toBeVisible();
    await expect(page.getByTestId("usage-first-use")).toHaveCount(0);
    await expect(page.getByTestId("total-credits")).toHaveText(String(1000 - remaining));
    await expect(page.getByTestId("usage-charts")).toBeVisible();
  });
});
