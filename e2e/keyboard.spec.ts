import { expect, test, type Locator, type Page } from "@playwright/test";
import { adminCredentials, signInAsAdminWithConsoleKey } from "./support/session";

/**
 * Keyboard only (docs/console.md): the main flows work with the keyboard alone — Tab to move,
 * typing, Enter and Space to act, arrow keys in selects, End/PageDown to scroll. No click, no fill:
 * only page.keyboard, and focus is checked before every key press that acts.
 */
const FIRST_EVENT = "1000000000000001";
const SECOND_EVENT = "1000000000000002";
const SMALL_USER = "2000000002"; // 30 followers: 2 pages
const PROFILE = "urn:li:member:3000000001"; // 45 publications: 5 pages
const MAX_TABS = 150;

const isFocused = (target: Locator): Promise<boolean> => target.evaluate((element) => element === document.activeElement);

/** Presses Tab until `target` has the focus (forward through the page, as a keyboard user would). */
const tabTo = async (page: Page, target: Locator): Promise<void> => {
  for (let presses = 0; presses < MAX_TABS; presses += 1) {
    if (await isFocused(target)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${target.toString()} within ${MAX_TABS} presses`);
};

/** Replaces the focused field's text with `text`, typed. */
const typeInto = async (page: Page, target: Locator, text: string): Promise<void> => {
  await tabTo(page, target);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(text);
  await expect(target).toHaveValue(text);
};

test.describe("keyboard only", () => {
  test("signs in", async ({ page }) => {
    const { email, password } = adminCredentials();
    await page.goto("/signin");
    await typeInto(page, page.getByLabel("Email"), email);
    await typeInto(page, page.getByLabel("Password"), password);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname !== "/signin");
  });

  test("creates a key, reads its token once and dismisses it", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    await page.goto("/keys");
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    const name = `keyboard ${Date.now().toString(36)}`;
    await typeInto(page, page.getByTestId("new-key-name"), name);
    await typeInto(page, page.getByTestId("new-key-credits"), "25");
    await typeInto(page, page.getByTestId("new-key-qps"), "3");
    await tabTo(page, page.getByTestId("create-key"));
    const created = page.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/api/keys");
    await page.keyboard.press("Enter");
    const response = await created;
    expect(response.status()).toBe(201);
    const { key } = (await response.json()) as { key: { id: string } };
    await expect(page.getByTestId("new-key-token").locator("code")).toHaveText(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await tabTo(page, page.getByTestId("token-done"));
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("new-key-token")).toHaveCount(0);
    await expect(page.getByTestId(`key-row-${key.id}`)).toContainText(name);
  });

  test("runs each event lookup: by id and by URL", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    await page.goto("/events");
    const input = page.getByTestId("event-input");
    await typeInto(page, input, FIRST_EVENT);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", FIRST_EVENT);

    await typeInto(page, input, `https://events.demo.test/events/${SECOND_EVENT}/`);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", SECOND_EVENT);
  });

  test("looks up followers and scrolls the list to its end", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    await page.goto("/followers");
    await typeInto(page, page.getByTestId("followers-input"), SMALL_USER);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("follower-row").first()).toBeVisible();

    // The list is a focusable scroll region: End scrolls to the end, which loads the next page.
    const list = page.getByTestId("followers-scroll");
    await tabTo(page, list);
    await expect(page.getByTestId("followers-end")).toHaveCount(0);
    for (let presses = 0; presses < 10 && (await page.getByTestId("followers-end").count()) === 0; presses += 1) {
      await page.keyboard.press("End");
      await page.waitForTimeout(300);
    }
    await expect(page.getByTestId("followers-end")).toHaveText(/End of list/);
    await expect(list).toContainText("End of list · 30 followers");
    expect(await list.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
  });

  test("looks up publications and pages through them", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    await page.goto("/publications");
    await typeInto(page, page.getByTestId("publications-input"), PROFILE);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("pager-summary")).toContainText("Page 1 of 5");
    await tabTo(page, page.getByTestId("pager-next"));
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("pager-summary")).toContainText("Page 2 of 5");
    await expect(page.getByTestId("publications-list")).toHaveAttribute("data-page", "2");
  });

  test("filters usage: period, scope and the request log", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    // Something to filter: one successful lookup of each kind through the console.
    for (const path of [
      `/api/console/lookup/event_details_id?event_id=${FIRST_EVENT}`,
      `/api/console/lookup/get_user_publications?urn=${encodeURIComponent(PROFILE)}`,
    ]) {
      expect((await page.request.get(path)).status()).toBe(200);
    }
    await page.goto("/usage");
    await expect(page.getByTestId("usage-totals")).toBeVisible();

    await tabTo(page, page.getByTestId("period-30d"));
    await page.keyboard.press("Space");
    await expect(page.getByTestId("period-30d")).toHaveAttribute("aria-checked", "true");

    const scope = page.getByTestId("scope-select");
    await tabTo(page, scope);
    const scopeBefore = await scope.inputValue();
    await page.keyboard.press("ArrowDown");
    await expect(scope).not.toHaveValue(scopeBefore);
    await page.keyboard.press("ArrowUp");
    await expect(scope).toHaveValue(scopeBefore);

    const operation = page.getByTestId("log-filter-operation");
    await tabTo(page, operation);
    await expect(page.getByTestId("log-row").first()).toBeVisible();
    // Down to "get_user_publications" (the last option), applied at once.
    await page.keyboard.press("End");
    await expect(operation).toHaveValue("get_user_publications");
    const shownOperations = async () =>
      [...new Set(await page.getByTestId("log-operation").evaluateAll((cells) => cells.map((cell) => cell.getAttribute("data-operation"))))];
    await expect.poll(shownOperations).toEqual(["get_user_publications"]);
  });
});
