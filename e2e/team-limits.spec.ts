import { expect, test, type Browser, type Page } from "@playwright/test";
import { collectErrors } from "./support/page-errors";
import { adminCredentials, postFromPage, signIn } from "./support/session";

/**
 * A team's limits and roles as its members meet them in the console (docs/teams.md): a lookup
 * stopped by a spent budget or an empty pool says which limit ran out and who can lift it, and
 * the meter has one figure left, what can really be spent; a viewer's lookup shows the server's
 * sentence; the menu hides what a role cannot use, and the audit page says why it is closed; the
 * Members page says what each member spent; Usage forecasts the pool once and names each
 * console key with its maker; the API page and the Members page fit a laptop and a phone.
 */
const EVENT_COST = 4;
/** A demo event not looked up before in this browser (a repeated one is shown again from the page's cache, free). */
let nextEvent = 2;
const freshEventId = () => String(1_000_000_000_000_000 + nextEvent++);

type Sent = { status: number; text: string };

/** A same-origin JSON request of any method from inside the page, as the console's own UI sends it. */
const sendFromPage = (page: Page, method: "DELETE" | "PATCH" | "POST", path: string, body: unknown): Promise<Sent> =>
  page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(path, { method, headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) });
      return { status: response.status, text: await response.text() };
    },
    { method, path, body },
  );

/** Someone new follows the invitation link, sets a password, and lands in the console of the team. */
const joinAs = async (browser: Browser, link: string, name: string, password: string): Promise<Page> => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(link);
  await page.getByTestId("accept-name").fill(name);
  await page.getByTestId("accept-password").fill(password);
  await page.getByTestId("accept-with-password").click();
  await page.waitForURL((url) => url.pathname === "/keys");
  return page;
};

/** Runs a lookup of a fresh event on the Events page and answers the console API's status. */
const lookUpEvent = async (page: Page): Promise<number> => {
  await page.getByTestId("event-input").fill(freshEventId());
  const [response] = await Promise.all([
    page.waitForResponse((answer) => new URL(answer.url()).pathname.startsWith("/api/console/lookup/")),
    page.getByTestId("event-run").click(),
  ]);
  return response.status();
};

const meter = (page: Page) => page.getByTestId("credit-meter").filter({ visible: true });
const consoleMenu = (page: Page) => page.getByRole("navigation", { name: "Console" });

test("a team's limits, roles, spend and layouts as its members see them", async ({ page, browser }, testInfo) => {
  test.setTimeout(240_000);
  const errors = collectErrors(page, { expectFailedRequests: true });
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const team = `Limits ${suffix}`;
  const anaEmail = `ana-${suffix}@example.test`;
  const vicEmail = `vic-${suffix}@example.test`;
  const admin = adminCredentials();

  await signIn(page, admin);
  const personal = ((await (await page.request.get("/api/workspaces")).json()) as { workspaces: { id: string; personal: boolean }[] }).workspaces.find(
    (workspace) => workspace.personal,
  );
  if (!personal) throw new Error("the admin has no personal workspace");
  const members: Page[] = [];
  let teamId = "";
  try {
    // A team whose pool holds four lookups; the admin owns it and works in it.
    const created = await postFromPage(page, "/api/workspaces", { name: team });
    expect(created.status, created.text).toBe(201);
    teamId = (JSON.parse(created.text) as { workspace: { id: string } }).workspace.id;
    expect((await postFromPage(page, `/api/workspaces/${teamId}/switch`, {})).status).toBe(200);
    expect((await postFromPage(page, `/api/workspaces/${teamId}/credits`, { credits: 4 * EVENT_COST })).status).toBeLessThan(300);
    const invite = async (email: string, role: string) => {
      const invited = await postFromPage(page, `/api/workspaces/${teamId}/invitations`, { email, role });
      expect(invited.status, invited.text).toBe(201);
      return (JSON.parse(invited.text) as { invitation: { url: string } }).invitation.url;
    };
    const ana = await joinAs(browser, await invite(anaEmail, "analyst"), "Ana Analyst", `pw-${suffix}-ana-long`);
    const vic = await joinAs(browser, await invite(vicEmail, "viewer"), "Vic Viewer", `pw-${suffix}-vic-long`);
    members.push(ana, vic);
    const anaErrors = collectErrors(ana, { expectFailedRequests: true });
    const anaId = ((await (await ana.request.get("/api/me")).json()) as { id: string }).id;
    expect((await sendFromPage(page, "PATCH", `/api/workspaces/${teamId}/members/${anaId}`, { monthlyBudgetCredits: 2 * EVENT_COST })).status).toBe(200);

    // The admin's own console lookup draws from the pool too.
    await page.goto("/events");
    expect(await lookUpEvent(page)).toBe(200);
    await expect(page.getByTestId("event-card")).toBeVisible();

    // Ana spends her budget: two lookups, and the third is refused for the budget, not the key.
    await ana.goto("/events");
    for (let index = 0; index < 2; index += 1) expect(await lookUpEvent(ana)).toBe(200);
    expect(await lookUpEvent(ana)).toBe(402);
    const budgetError = ana.getByTestId("lookup-error");
    await expect(budgetError).toContainText(`Your monthly budget in ${team} is spent`);
    await expect(budgetError).toContainText(`an owner or admin of ${team} can raise it`);
    await expect(budgetError).not.toContainText("This key is out of credits");
    await expect(budgetError.getByRole("link", { name: "Go to Keys" })).toHaveCount(0);
    await expect(budgetError.getByRole("link", { name: "See members" })).toBeVisible();
    // The meter: one figure left — the budget's 0, not the pool's 4 — and the same sentence.
    await expect(meter(ana)).toHaveAttribute("data-limited-by", "budget");
    await expect(meter(ana)).toHaveAttribute("data-credits-spendable", "0");
    await expect(meter(ana).getByTestId("credit-meter-empty")).toContainText(`Your monthly budget in ${team} is spent`);
    expect((await meter(ana).innerText()).match(/\bleft\b/g)).toHaveLength(1);
    await ana.screenshot({ path: testInfo.outputPath("budget-spent.png"), fullPage: true });

    // The Members page says what she spent of her budget.
    await page.goto("/workspace/members");
    await expect(page.getByTestId("member-row").filter({ hasText: anaEmail }).getByTestId("member-budget")).toHaveText(
      `spent ${2 * EVENT_COST} of ${2 * EVENT_COST} this month`,
    );

    // Without a budget she empties the pool: the next lookup is refused for the pool.
    expect((await sendFromPage(page, "PATCH", `/api/workspaces/${teamId}/members/${anaId}`, { monthlyBudgetCredits: null })).status).toBe(200);
    await ana.reload();
    expect(await lookUpEvent(ana)).toBe(200);
    expect(await lookUpEvent(ana)).toBe(402);
    const poolError = ana.getByTestId("lookup-error");
    await expect(poolError).toContainText(`The pool of ${team} is empty`);
    await expect(poolError).toContainText("the service administrator can fund it");
    await expect(meter(ana)).toHaveAttribute("data-limited-by", "pool");
    await expect(meter(ana)).toHaveAttribute("data-credits-spendable", "0");
    await page.reload();
    await expect(page.getByTestId("member-row").filter({ hasText: anaEmail }).getByTestId("member-budget")).toHaveText(
      `No budget · spent ${3 * EVENT_COST} this month`,
    );

    // An analyst: no audit log in the menu; reached anyway, the page says why, with nothing to retry.
    await expect(consoleMenu(ana).getByRole("link", { name: "Events" })).toBeVisible();
    await expect(consoleMenu(ana).getByRole("link", { name: "Workspace audit" })).toHaveCount(0);
    await ana.goto("/workspace/audit");
    await expect(ana.getByTestId("audit-error")).toHaveText("Your role (analyst) cannot see this workspace's audit log.");
    await expect(ana.getByRole("button", { name: "Try again" })).toHaveCount(0);
    await ana.screenshot({ path: testInfo.outputPath("analyst-audit.png") });
    expect(anaErrors).toEqual([]);

    // A viewer: no lookup pages in the menu; a lookup reached anyway shows the server's sentence.
    await vic.goto("/events");
    await expect(consoleMenu(vic).getByRole("link", { name: "Workspace audit" })).toBeVisible();
    await expect(consoleMenu(vic).getByRole("link", { name: "Events" })).toHaveCount(0);
    await expect(meter(vic).getByTestId("credit-meter-role")).toHaveText(
      "Your role in this workspace (viewer) cannot run lookups. Switch to a workspace where you may.",
    );
    expect(await lookUpEvent(vic)).toBe(403);
    const refused = vic.getByTestId("lookup-error");
    await expect(refused).toHaveAttribute("data-code", "forbidden");
    await expect(refused).toContainText("Your role in this workspace (viewer) cannot run lookups.");
    await expect(refused).not.toContainText("Something went wrong");
    await expect(refused.getByRole("button")).toHaveCount(0);
    await vic.screenshot({ path: testInfo.outputPath("viewer-events.png"), fullPage: true });

    // Usage of the team: the pool forecast once, console keys named with their makers.
    await page.goto("/usage");
    await expect(page.getByTestId("forecast-pool-row")).toHaveCount(1, { timeout: 20_000 });
    await expect(page.getByTestId("forecast-pool-row")).toContainText(`Pool of ${team}`);
    await expect(page.getByTestId("forecast-table").locator('[data-testid^="forecast-row-"]')).toHaveCount(0);
    const keyFilter = page.getByTestId("log-filter-key");
    await expect(keyFilter.locator("option", { hasText: `Console — ${anaEmail}` })).toHaveCount(1);
    await expect(keyFilter.locator("option", { hasText: `Console — ${admin.email}` })).toHaveCount(1);
    await expect(page.getByTestId("log-row").filter({ hasText: `Console — ${anaEmail}` }).first()).toBeVisible();
    await page.getByTestId("forecast-table").scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath("usage-team.png"), fullPage: true });

    // A laptop: inside the console, the API page's try-it form keeps a working width.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/api-docs#event_details_id");
    const tryIt = page.getByTestId("try-event_details_id");
    await tryIt.scrollIntoViewIfNeeded();
    const tryBox = await tryIt.boundingBox();
    expect(tryBox?.width ?? 0, "the try-it form's width at 1280 px").toBeGreaterThanOrEqual(720);
    expect((tryBox?.x ?? 0) + (tryBox?.width ?? 0)).toBeLessThanOrEqual(1280);
    await tryIt.screenshot({ path: testInfo.outputPath("api-try-it-1280.png") });
    await page.screenshot({ path: testInfo.outputPath("api-page-1280.png") });

    // A phone: every member's buttons on the Members page are on screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/workspace/members");
    const buttons = page.getByTestId("members-table").getByRole("button");
    await expect(buttons.first()).toBeVisible();
    expect(await buttons.count()).toBeGreaterThanOrEqual(6);
    for (const button of await buttons.all()) {
      const box = await button.boundingBox();
      expect(box, `${await button.getAttribute("aria-label")} has a box`).not.toBeNull();
      expect(box?.x ?? -1, `${await button.getAttribute("aria-label")} starts on screen`).toBeGreaterThanOrEqual(0);
      expect((box?.x ?? 0) + (box?.width ?? 0), `${await button.getAttribute("aria-label")} ends on screen`).toBeLessThanOrEqual(390);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "no sideways scrolling").toBeLessThanOrEqual(390);
    await page.screenshot({ path: testInfo.outputPath("members-390.png"), fullPage: true });
    expect(errors).toEqual([]);
  } finally {
    for (const member of members) await member.context().close();
    // Later specs expect the admin's personal workspace, and no team of this spec in their list.
    await postFromPage(page, `/api/workspaces/${personal.id}/switch`, {});
    if (teamId !== "") expect((await sendFromPage(page, "DELETE", `/api/workspaces/${teamId}`, {})).status).toBe(200);
  }
});
