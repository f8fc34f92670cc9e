import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { collectErrors } from "./support/page-errors";
import { adminCredentials, postFromPage, signIn } from "./support/session";

/**
 * Teams in the console (docs/teams.md): the service administrator makes a team workspace and
 * funds its pool; an invitation link brings a new person in (they set a password); their
 * lookups — in the console and with a key they made — draw from the pool by exactly the cost;
 * Usage shows them by member; removed, their key answers 401 on /v1 and the console refuses
 * them; the audit log says who did what. The new pages have no serious axe violation.
 */
const EVENT_COST = 4;
const POOL = 100;
const EVENT_ID = "1000000000000001";

type WorkspaceList = { workspaces: Array<{ id: string; name: string; personal: boolean; poolCredits: number }>; activeWorkspaceId: string };

const workspaces = async (page: Page): Promise<WorkspaceList> => {
  const response = await page.request.get("/api/workspaces");
  expect(response.status(), "GET /api/workspaces").toBe(200);
  return (await response.json()) as WorkspaceList;
};

const poolOf = async (page: Page, workspaceId: string): Promise<number> => {
  const workspace = (await workspaces(page)).workspaces.find((candidate) => candidate.id === workspaceId);
  if (!workspace) throw new Error(`not a member of ${workspaceId}`);
  return workspace.poolCredits;
};

const expectAxeClean = async (page: Page, what: string) => {
  await page.waitForLoadState("networkidle");
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"])
    .analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  expect(serious, `axe on ${what}`).toEqual([]);
};

const v1Event = (page: Page, token: string) =>
  page.request.get(`/v1/eventsite/event_details_id?event_id=${EVENT_ID}`, { headers: { Authorization: `Bearer ${token}` } });

test("invite → join → lookups on the pool → usage by member → removed: key refused, console refuses", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const errors = collectErrors(page, { expectFailedRequests: true });
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const teamName = `Team ${suffix}`;
  const inviteeEmail = `invitee-${suffix}@example.test`;
  const inviteePassword = `pw-${suffix}-long-enough`;

  await signIn(page, adminCredentials());
  const personalId = (await workspaces(page)).workspaces.find((workspace) => workspace.personal)?.id;
  if (!personalId) throw new Error("the admin has no personal workspace");
  try {
    // A team workspace, made on the Members page; the console switches to it.
    await page.goto("/workspace/members");
    await page.getByTestId("workspace-name").fill(teamName);
    await page.getByTestId("workspace-create-submit").click();
    await expect(page.getByTestId("members-workspace")).toContainText(teamName);
    const teamId = (await workspaces(page)).activeWorkspaceId;
    expect(teamId).not.toBe(personalId);
    await expect(page.getByTestId("workspace-switcher")).toHaveAttribute("data-active-workspace", teamId);

    const funded = await postFromPage(page, `/api/workspaces/${teamId}/credits`, { credits: POOL });
    expect(funded.status, funded.text).toBeLessThan(300);
    expect(await poolOf(page, teamId)).toBe(POOL);

    // The invitation: a link shown once, then a pending invitation.
    await page.reload();
    await page.getByTestId("invite-email").fill(inviteeEmail);
    await page.getByTestId("invite-role").selectOption("analyst");
    await page.getByTestId("invite-submit").click();
    const link = (await page.getByTestId("invitation-url").locator("code").textContent())?.trim() ?? "";
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/invitations\/accept#token=/);
    await page.getByTestId("invitation-done").click();
    await expect(page.getByTestId("invitation-row").filter({ hasText: inviteeEmail })).toBeVisible();
    await expectAxeClean(page, "the Members page");

    // A second invitation, revoked: its row goes.
    const revokedEmail = `revoked-${suffix}@example.test`;
    await page.getByTestId("invite-email").fill(revokedEmail);
    await page.getByTestId("invite-submit").click();
    await page.getByTestId("invitation-done").click();
    await page.getByRole("button", { name: `Revoke the invitation of ${revokedEmail}` }).click();
    await page.getByRole("dialog", { name: `Revoke the invitation of ${revokedEmail}?` }).getByRole("button", { name: "Revoke invitation" }).click();
    await expect(page.getByTestId("invitation-row").filter({ hasText: revokedEmail })).toHaveCount(0);

    const invitee = await browser.newContext();
    try {
      const member = await invitee.newPage();
      const memberErrors = collectErrors(member, { expectFailedRequests: true });
      // Signed out, no account yet: the page says who invites whom, and offers a password.
      await member.goto(link);
      await expect(member.getByTestId("invitation")).toContainText(teamName);
      await expect(member.getByTestId("invitation")).toContainText(inviteeEmail);
      await expectAxeClean(member, "the invitation page");
      await member.getByTestId("accept-name").fill("Invited Analyst");
      await member.getByTestId("accept-password").fill(inviteePassword);
      await member.getByTestId("accept-with-password").click();
      await member.waitForURL((url) => url.pathname === "/keys");
      await expect(member.getByTestId("workspace-switcher")).toHaveAttribute("data-active-workspace", teamId);
      await expect(member.getByTestId("workspace-pool")).toHaveAttribute("data-pool-credits", String(POOL));

      // The admin gives the new member a monthly budget of their own.
      await page.reload();
      await page.getByRole("button", { name: `Set the monthly budget of ${inviteeEmail}` }).click();
      const budget = page.getByRole("dialog", { name: `Monthly budget of ${inviteeEmail}` });
      await budget.getByLabel("Monthly budget (credits)").fill("50");
      await budget.getByRole("button", { name: "Save budget" }).click();
      await expect(page.getByText(`${inviteeEmail} may spend 50 credits of the pool a month.`)).toBeVisible();
      await expect(page.getByTestId("member-row").filter({ hasText: inviteeEmail }).getByTestId("member-budget")).toHaveText("spent 0 of 50 this month");

      // A key of their own in the team: no credits of its own, a cap, drawing from the pool.
      await member.getByTestId("new-key-name").fill("Team script");
      await member.getByTestId("new-key-cap").fill("50");
      await member.getByTestId("new-key-cap-period").selectOption("total");
      await member.getByTestId("create-key").click();
      const token = (await member.getByTestId("new-key-token").locator("code").textContent())?.trim() ?? "";
      expect(token.length).toBeGreaterThan(10);
      await member.getByTestId("token-done").click();
      await expect(member.getByTestId("keys-table")).toContainText("Made by: You");
      await expect(member.getByTestId("keys-table")).toContainText("50 in all");
      await expectAxeClean(member, "the Keys page of a team");

      // A console lookup draws the cost from the pool, and the meter shows the pool.
      await member.goto("/events");
      await member.getByTestId("event-input").fill(EVENT_ID);
      await member.getByTestId("event-run").click();
      await expect(member.getByTestId("event-card")).toBeVisible();
      expect(await poolOf(page, teamId)).toBe(POOL - EVENT_COST);
      await expect(member.getByTestId("credit-meter-pool").filter({ visible: true })).toHaveAttribute("data-pool-credits", String(POOL - EVENT_COST));

      // So does a /v1 call with the key they made; the meter shows what is left of their budget.
      expect((await v1Event(member, token)).status()).toBe(200);
      expect(await poolOf(page, teamId)).toBe(POOL - 2 * EVENT_COST);
      await member.reload();
      await expect(member.getByTestId("credit-meter-budget").filter({ visible: true })).toHaveAttribute("data-budget-left", String(50 - 2 * EVENT_COST));

      // Usage of the workspace by member, on the page and as CSV.
      await page.goto("/usage");
      const row = page.getByTestId("usage-member-row").filter({ hasText: inviteeEmail });
      // The summary is the page's heaviest read: on a loaded machine it takes a few seconds.
      await expect(row.getByTestId("usage-member-credits")).toHaveText(String(2 * EVENT_COST), { timeout: 20_000 });
      const csvHref = await page.getByTestId("download-members-csv").getAttribute("href");
      const csv = await (await page.request.get(csvHref ?? "")).text();
      expect(csv).toContain(inviteeEmail);
      expect(csv.split("\r\n").find((line) => line.includes(inviteeEmail))).toMatch(new RegExp(`,${2 * EVENT_COST}$`));
      await expectAxeClean(page, "the Usage page of a team");

      // Made a viewer: the console refuses their lookups, saying why.
      await page.goto("/workspace/members");
      await page.getByRole("button", { name: `Change the role of ${inviteeEmail}` }).click();
      const role = page.getByRole("dialog", { name: `Role of ${inviteeEmail}` });
      await role.getByLabel("Role").selectOption("viewer");
      await role.getByRole("button", { name: "Save role" }).click();
      await expect(page.getByText(`${inviteeEmail} is now viewer.`)).toBeVisible();
      const asViewer = await member.request.get(`/api/console/lookup/event_details_id?event_id=${EVENT_ID}`);
      expect(asViewer.status()).toBe(403);
      expect(await asViewer.text()).toContain("cannot run lookups");
      // Their key is suspended, not revoked: /v1 refuses it, charging nothing, and their Keys page
      // still lists it, marked, with a way to revoke it.
      expect((await v1Event(member, token)).status()).toBe(401);
      expect(await poolOf(page, teamId)).toBe(POOL - 2 * EVENT_COST);
      await member.goto("/keys");
      // Their console key there is suspended with it.
      const suspended = member.getByTestId("keys-suspended");
      const script = suspended.locator('[data-testid^="key-row-"]').filter({ hasText: "Team script" });
      await expect(script.getByText("Suspended", { exact: true })).toBeVisible();
      await expect(script).toContainText("Your role here is viewer, which runs no lookups");
      await expect(script.getByRole("button", { name: "Revoke Team script" })).toBeVisible();

      // Removed: the dialog says what removal does; then their key and their console are refused.
      await page.getByRole("button", { name: `Remove ${inviteeEmail}` }).click();
      const dialog = page.getByRole("dialog", { name: `Remove ${inviteeEmail}?` });
      await expect(dialog).toContainText("Every key they made in this workspace is revoked");
      await dialog.getByRole("button", { name: "Remove member" }).click();
      await expect(page.getByText(`${inviteeEmail} was removed`)).toBeVisible();
      await expect(page.getByTestId("member-row").filter({ hasText: inviteeEmail })).toHaveCount(0);

      expect((await v1Event(member, token)).status()).toBe(401);
      expect((await member.request.get(`/api/workspaces/${teamId}/members`)).status()).toBe(404);
      // Back in their personal workspace, with no console key there.
      const consoleLookup = await member.request.get(`/api/console/lookup/event_details_id?event_id=${EVENT_ID}`);
      expect(consoleLookup.status()).toBe(409);
      expect(await poolOf(page, teamId)).toBe(POOL - 2 * EVENT_COST);
      await member.goto("/keys");
      await expect(member.getByTestId("workspace-switcher")).not.toHaveAttribute("data-active-workspace", teamId);
      expect(memberErrors).toEqual([]);
    } finally {
      await invitee.close();
    }

    // The audit log: who joined and who removed them.
    await page.goto("/workspace/audit");
    await expect(page.getByTestId("audit-table")).toContainText("Member joined");
    await expect(page.getByTestId("audit-table")).toContainText("Member removed");
    await expectAxeClean(page, "the workspace audit log");

    // Back to the personal workspace with the keyboard alone: the switcher opens on the active
    // entry, the arrow keys move, Enter switches.
    const switcher = page.getByTestId("workspace-switcher-button");
    await switcher.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId(`workspace-option-${teamId}`)).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(switcher).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId(`workspace-option-${teamId}`)).toBeFocused();
    // The list holds the personal workspace first, the team after it.
    await page.keyboard.press("ArrowUp");
    await expect(page.getByTestId(`workspace-option-${personalId}`)).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("workspace-switcher")).toHaveAttribute("data-active-workspace", personalId);
    await expect(switcher).toBeFocused();
    expect((await workspaces(page)).activeWorkspaceId).toBe(personalId);
    expect(errors).toEqual([]);
  } finally {
    // Later specs expect the admin's personal workspace.
    await postFromPage(page, `/api/workspaces/${personalId}/switch`, {});
  }
});
