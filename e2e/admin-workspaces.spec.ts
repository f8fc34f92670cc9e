import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { collectErrors } from "./support/page-errors";
import { adminCredentials, createAnalyst, inOwnContext, signIn } from "./support/session";

/**
 * Funding a team from the console (docs/teams.md "Funding a team"): a new team's pool is empty,
 * so its member's first lookup is refused, the pool being empty; the service administrator finds the
 * team on Admin → Workspaces, grants it credits with a reason, and the member's next lookup is
 * served from the pool. The owner then renames the team on its Members page. Both pages have no
 * serious axe violation, in the light and the dark scheme.
 */
const EVENT_ID = "1000000000000001";
const EVENT_COST = 4;
const GRANT = 100;

const expectAxeClean = async (page: Page, what: string) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForLoadState("networkidle");
    const results = await new AxeBuilder({ page })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"])
      .analyze();
    const serious = results.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
    expect(serious, `axe on ${what} (${colorScheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: "light" });
};

type Workspace = { id: string; name: string; personal: boolean; poolCredits: number };

const activeWorkspace = async (page: Page): Promise<Workspace> => {
  const response = await page.request.get("/api/workspaces");
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { workspaces: Workspace[]; activeWorkspaceId: string };
  const active = body.workspaces.find((workspace) => workspace.id === body.activeWorkspaceId);
  if (!active) throw new Error("no active workspace");
  return active;
};

const runEvent = async (page: Page) => {
  await page.goto("/events");
  await page.getByTestId("event-input").fill(EVENT_ID);
  await page.getByTestId("event-run").click();
};

test("an empty team is funded on Admin → Workspaces, its member's lookup then succeeds, and its owner renames it", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const errors = collectErrors(page);
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const teamName = `Field team ${suffix}`;
  const newName = `Survey team ${suffix}`;
  const reason = `Pilot budget ${suffix}`;

  await signIn(page, adminCredentials());
  // No allowance: the owner cannot fund the pool themselves.
  const owner = await createAnalyst(page, { creditAllowance: 0 });

  await inOwnContext(browser, async (member) => {
    await signIn(member, owner);
    await member.goto("/workspace/members");
    await member.getByTestId("workspace-name").fill(teamName);
    await member.getByTestId("workspace-create-submit").click();
    await expect(member.getByTestId("members-workspace")).toContainText(teamName);
    const team = await activeWorkspace(member);
    expect(team).toMatchObject({ name: teamName, personal: false, poolCredits: 0 });
    // The settings card says why lookups will be refused and who can fund the pool.
    await expect(member.getByTestId("workspace-settings")).toContainText("Admin → Workspaces");

    // The defect as a new team lead met it: the first lookup is refused, the pool being empty.
    await runEvent(member);
    await expect(member.getByTestId("lookup-error")).toContainText(`The pool of ${teamName} is empty`);

    // The service administrator finds the team, empty, and grants it credits with a reason.
    await page.goto("/admin/workspaces");
    const row = page.getByTestId("admin-workspace-row").filter({ hasText: teamName });
    await expect(row).toContainText(owner.email);
    await expect(row.getByTestId("admin-workspace-pool")).toContainText("Empty");
    await expectAxeClean(page, "Admin → Workspaces");
    await page.getByTestId("admin-workspaces-search").fill(suffix);
    await expect(page.getByTestId("admin-workspace-row")).toHaveCount(1);

    await row.getByRole("button", { name: `Manage ${teamName}` }).click();
    const drawer = page.getByRole("dialog", { name: `Workspace “${teamName}”` });
    await expect(drawer).toBeVisible();
    // A bad amount is caught before any request.
    await drawer.getByTestId("pool-grant-credits").fill("0");
    await drawer.getByTestId("pool-grant-reason").fill(reason);
    await drawer.getByTestId("pool-grant-submit").click();
    await expect(drawer.getByText("Enter a whole number from 1 to 1,000,000,000.")).toBeVisible();
    await drawer.getByTestId("pool-grant-credits").fill(String(GRANT));
    await drawer.getByTestId("pool-grant-submit").click();
    await expect(drawer.getByTestId("pool-grant").getByRole("status")).toContainText(`Granted ${GRANT} credits: the pool now has ${GRANT}.`);
    await expect(page.getByTestId("workspace-drawer-summary")).toContainText(`pool ${GRANT} credits`);

    // The shared limit and a monthly refill, from the same drawer.
    await drawer.getByTestId("shared-limit-qps").fill("20");
    await drawer.getByTestId("shared-limit-submit").click();
    await expect(drawer.getByTestId("shared-limit").getByRole("status")).toContainText("at most 20 requests a second");
    await drawer.getByTestId("pool-refill-interval").selectOption("monthly");
    await drawer.getByTestId("pool-refill-credits").fill("500");
    await drawer.getByTestId("pool-refill-submit").click();
    await expect(drawer.getByTestId("pool-refill").getByRole("status")).toContainText("topped up to 500 credits each month");
    await expectAxeClean(page, "the workspace drawer");
    await drawer.getByTestId("workspace-drawer-close").click();
    await expect(row.getByTestId("admin-workspace-pool")).toHaveAttribute("data-pool-credits", String(GRANT));
    await expect(row.getByTestId("admin-workspace-limit")).toHaveText("20/s");
    await expect(row.getByTestId("admin-workspace-refill")).toHaveText("up to 500 monthly");

    // The grant and its reason are in the team's audit log.
    const audit = await page.request.get(`/api/workspaces/${team.id}/audit`);
    const entries = ((await audit.json()) as { entries: { action: string; details: Record<string, unknown> }[] }).entries;
    expect(entries.find((entry) => entry.action === "pool.credits")?.details).toMatchObject({ credits: GRANT, from: "grant", reason });

    // The member's lookup is now served, from the pool.
    await runEvent(member);
    await expect(member.getByTestId("event-card")).toBeVisible();
    expect((await activeWorkspace(member)).poolCredits).toBe(GRANT - EVENT_COST);

    // The owner renames the team on its Members page; the switcher and the admin list follow.
    await member.goto("/workspace/members");
    await expectAxeClean(member, "the Members page with the workspace settings");
    await member.getByTestId("workspace-rename-name").fill(newName);
    await member.getByTestId("workspace-rename-submit").click();
    await expect(member.getByText(`The workspace is now called “${newName}”.`)).toBeVisible();
    await expect(member.getByTestId("members-workspace")).toContainText(newName);
    await expect(member.getByTestId("workspace-switcher")).toContainText(newName);
    await page.reload();
    await expect(page.getByTestId("admin-workspace-row").filter({ hasText: newName })).toHaveAttribute("data-workspace-id", team.id);
  });
  expect(errors).toEqual([]);
});
