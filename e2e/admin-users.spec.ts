import { expect, test } from "@playwright/test";
import { collectErrors } from "./support/page-errors";
import { adminCredentials, createAnalyst, inOwnContext, signIn } from "./support/session";

/**
 * The row actions of /admin/users, each one dialog and one PATCH: the allowance (with a readable
 * refusal of a bad value), disable and enable, and a password reset the user then signs in with.
 */
test("an admin changes an analyst's allowance, disables and enables them, and resets their password", async ({ page, browser }) => {
  const errors = collectErrors(page);
  await signIn(page, adminCredentials());
  const analyst = await createAnalyst(page, { creditAllowance: 1_000 });
  await page.goto("/admin/users");
  const row = page.getByRole("row").filter({ hasText: analyst.email });
  await expect(row).toContainText("1,000");

  await page.getByRole("button", { name: `Allowance of ${analyst.email}` }).click();
  const allowance = page.getByRole("dialog", { name: `Credit allowance of ${analyst.email}` });
  await allowance.getByLabel("Credit allowance").fill("-5");
  await allowance.getByRole("button", { name: "Save allowance" }).click();
  await expect(allowance).toBeVisible();
  await expect(allowance.getByLabel("Credit allowance")).toHaveAttribute("aria-invalid", "true");
  await allowance.getByLabel("Credit allowance").fill("2500");
  await allowance.getByRole("button", { name: "Save allowance" }).click();
  await expect(allowance).toBeHidden();
  await expect(page.getByText(`${analyst.email} may now give 2,500 credits to their keys.`)).toBeVisible();
  await expect(row).toContainText("2,500");

  await page.getByRole("button", { name: `Disable ${analyst.email}` }).click();
  const disable = page.getByRole("dialog", { name: `Disable ${analyst.email}?` });
  await disable.getByRole("button", { name: "Disable user" }).click();
  await expect(page.getByText(`${analyst.email} is disabled: their sessions and API keys stopped working.`)).toBeVisible();
  await expect(row).toContainText("Disabled");

  await page.getByRole("button", { name: `Enable ${analyst.email}` }).click();
  await page.getByRole("dialog", { name: `Enable ${analyst.email}?` }).getByRole("button", { name: "Enable user" }).click();
  await expect(page.getByText(`${analyst.email} can sign in again.`)).toBeVisible();
  await expect(row).toContainText("Active");

  const newPassword = `reset-${Date.now().toString(36)}-passphrase`;
  await page.getByRole("button", { name: `Reset password of ${analyst.email}` }).click();
  const reset = page.getByRole("dialog", { name: `Reset the password of ${analyst.email}` });
  await reset.getByLabel("New password").fill(newPassword);
  await reset.getByRole("button", { name: "Reset password" }).click();
  await expect(page.getByText(`${analyst.email} has a new password and was signed out everywhere.`)).toBeVisible();

  await inOwnContext(browser, async (analystPage) => {
    await signIn(analystPage, analyst.email, newPassword);
    await expect(analystPage).not.toHaveURL(/\/signin/);
  });
  expect(errors).toEqual([]);
});

test("on a phone every account's role, status, allowance and actions are in view, without scrolling sideways", async ({ page }) => {
  const errors = collectErrors(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, adminCredentials());
  const analyst = await createAnalyst(page, { creditAllowance: 1_500 });
  await page.goto("/admin/users");
  const card = page.getByTestId("user-card").filter({ hasText: analyst.email });
  await card.scrollIntoViewIfNeeded();
  for (const text of ["Analyst", "Active", "1,500"]) await expect(card.getByText(text, { exact: true })).toBeInViewport({ ratio: 1 });
  for (const name of [`Allowance of ${analyst.email}`, `Reset password of ${analyst.email}`, `Disable ${analyst.email}`]) {
    await expect(page.getByRole("button", { name })).toBeInViewport({ ratio: 1 });
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // The actions work from the card as from the table.
  await page.getByRole("button", { name: `Disable ${analyst.email}` }).click();
  await page.getByRole("dialog", { name: `Disable ${analyst.email}?` }).getByRole("button", { name: "Disable user" }).click();
  await expect(card.getByText("Disabled", { exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});
