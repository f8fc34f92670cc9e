import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { collectErrors } from "./support/page-errors";
import { adminCredentials, signIn } from "./support/session";

/**
 * Admin → Privacy in the browser: download what is held about a subject, suppress it (it is
 * listed with its reason), and lift the suppression. An event id no other spec looks up.
 */
const SUBJECT = "1000000000009901";

test("an admin downloads a subject's data, suppresses it, sees it listed and lifts it", async ({ page }) => {
  const errors = collectErrors(page);
  await signIn(page, adminCredentials());
  await page.goto("/admin/privacy");
  await expect(page.getByRole("heading", { name: "Privacy", level: 1 })).toBeVisible();

  await page.getByLabel("Kind").selectOption("event");
  await page.getByRole("textbox", { name: "Subject", exact: true }).fill(SUBJECT);
  const downloading = page.waitForEvent("download");
  await page.getByTestId("subject-access-download").click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`subject-event-${SUBJECT}.json`);
  const document = JSON.parse(fs.readFileSync(await download.path(), "utf8")) as { subject: { kind: string; subject: string }; suppressed: boolean };
  expect(document).toMatchObject({ subject: { kind: "event", subject: SUBJECT }, suppressed: false });

  await page.getByLabel("Reason (for suppressing)").fill("browser test erasure");
  await page.getByRole("button", { name: "Suppress and erase" }).click();
  await expect(page.getByText(`Suppressed event ${SUBJECT}`)).toBeVisible();
  const row = page.getByTestId(`suppression-event-${SUBJECT}`);
  await expect(row).toContainText("browser test erasure");

  await row.getByRole("button", { name: `Lift Event ${SUBJECT}` }).click();
  await row.getByRole("textbox", { name: `Why lift Event ${SUBJECT}?` }).fill("request withdrawn");
  await row.getByRole("button", { name: "Confirm lift" }).click();
  await expect(row).toBeHidden();
  expect(errors).toEqual([]);
});

test("the Usage page says how far back the request log goes", async ({ page }) => {
  await signIn(page, adminCredentials());
  await page.goto("/usage");
  await expect(page.getByTestId("request-log-retention")).toHaveText(/^The request log goes back 90 days;/);
});
