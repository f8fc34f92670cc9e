import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { collectErrors } from "./support/page-errors";
import { adminCredentials, createAnalyst, inOwnContext, postFromPage, signIn } from "./support/session";

/**
 * Admin → System (docs/monitoring.md "The system page"): the administrator finds the page in the
 * navigation, sees the instance serving the browser, ready (Redis, not configured here, said so),
 * and its lookup count and rate move after /v1 lookups without reloading; axe-core finds
 * nothing; an analyst gets the 404 page.
 */
const axeViolations = async (page: Page) =>
  (
    await new AxeBuilder({ page })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"])
      .analyze()
  ).violations.map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.map((node) => node.target.join(" ")) }));

const count = (text: string | null): number => Number((text ?? "").replace(/[^\d.]/g, ""));

test("an admin opens Admin → System, sees this instance ready, and its figures move after lookups", async ({ page }) => {
  test.setTimeout(90_000);
  const errors = collectErrors(page);
  await signIn(page, adminCredentials());
  await page.goto("/keys");
  const admin = page.getByRole("navigation", { name: "Console" });
  await admin.getByRole("link", { name: "System", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/system$/);
  await expect(page).toHaveTitle(/System/);
  await expect(page.getByRole("heading", { level: 1, name: "System" })).toBeVisible();
  await expect(admin.getByRole("link", { name: "System", exact: true })).toHaveAttribute("aria-current", "page");

  const mine = page.locator('[data-testid="instance-card"][data-current="true"]');
  await expect(mine).toHaveCount(1);
  await expect(mine).toHaveAccessibleName(/:\d+\s*, start [0-9a-f]{8}$/);
  await expect(mine.getByText("This instance")).toBeVisible();
  await expect(mine.getByText("Ready", { exact: true })).toBeVisible();
  const checks = mine.getByRole("list", { name: "Readiness checks" });
  await expect(checks).toContainText("database: passing");
  // This server has no Redis: the check says so rather than "passing".
  await expect(checks).toContainText("redis: not configured");
  await expect(checks).not.toContainText("redis: passing");
  for (const figure of ["rps", "requests-total", "error-rate", "latency", "batches", "db-queue", "event-loop"]) {
    await expect(mine.getByTestId(`figure-${figure}`)).toBeVisible();
  }

  const before = count(await mine.getByTestId("figure-requests-total").textContent());
  const created = await postFromPage(page, "/api/keys", { name: `system page ${Date.now()}`, credits: 1000, qpsLimit: 1000 });
  expect(created.status, created.text).toBe(201);
  const { token } = JSON.parse(created.text) as { token: string };
  const lookups = 10;
  for (let index = 0; index < lookups; index += 1) {
    const answer = await page.request.get("/v1/pinsite/followers?userid=2000000002", { headers: { Authorization: `Bearer ${token}` } });
    expect(answer.status()).toBe(200);
  }
  // No reload: the page reads again every few seconds, the instance reports every 5 s.
  await expect.poll(async () => count(await mine.getByTestId("figure-requests-total").textContent()), { timeout: 30_000 }).toBeGreaterThanOrEqual(
    before + lookups,
  );
  await expect.poll(async () => count(await mine.getByTestId("figure-rps").textContent())).toBeGreaterThan(0);
  await expect(mine.getByTestId("figure-latency")).not.toHaveText("— / —");

  // Pausing is a toggle a keyboard reaches; it says so.
  const pause = page.getByRole("button", { name: "Pause live updates" });
  await pause.focus();
  await page.keyboard.press("Enter");
  await expect(pause).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("system-updated")).toContainText("Paused");
  await page.keyboard.press("Enter");
  await expect(pause).toHaveAttribute("aria-pressed", "false");

  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    expect(await axeViolations(page), `axe in ${scheme} mode`).toEqual([]);
  }
  expect(errors).toEqual([]);
});

test("an analyst finds no System link and gets the 404 page at /admin/system", async ({ page, browser }) => {
  await signIn(page, adminCredentials());
  const analyst = await createAnalyst(page, { creditAllowance: 0 });
  await inOwnContext(browser, async (analystPage) => {
    await signIn(analystPage, analyst.email, analyst.password);
    await expect(analystPage.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "System", exact: true })).toHaveCount(0);
    const response = await analystPage.goto("/admin/system");
    expect(response?.status()).toBe(404);
    await expect(analystPage.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  });
});
