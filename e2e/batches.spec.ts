import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { parseCsv } from "../tests/support/csv";
import { consoleKeyCredits, postFromPage, signInAsAdminWithConsoleKey } from "./support/session";

/**
 * Batches in the console (docs/console.md "Batches"): an analyst uploads a CSV of event URLs, picks
 * the column, sees what will run (and what not, and why) with the exact cost, starts it, watches
 * the bar reach 100 % and downloads the results as CSV, one row per event.
 */
const HOST = "events.demo.test";
const EVENT_IDS = Array.from({ length: 12 }, (_, index) => String(1_000_000_000_000_001 + index));
const UNKNOWN_ID = "9000000000000001";

const MAX_INPUTS = 10_000;

// Separated by semicolons, as Excel writes CSV in much of Europe.
const csvFile = (): string =>
  [
    "name;event page;notes",
    ...EVENT_IDS.map((id, index) => `Event ${index + 1};https://${HOST}/events/${id}/;"row; ${index + 1}"`),
    `Duplicate;https://www.${HOST}/events/${EVENT_IDS[0] ?? ""}/;same event`,
    `Unknown;https://${HOST}/events/${UNKNOWN_ID}/;not in the store`,
    `Broken;https://elsewhere.example/events/1/;wrong host`,
  ].join("\r\n") + "\r\n";

// Dates follow the browser's locale and time zone (one formatter across the console).
test.use({ locale: "de-DE", timezoneId: "Europe/Berlin" });

test("a CSV of event URLs runs as a batch: preview, cost, progress to 100 %, CSV download", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAsAdminWithConsoleKey(page, { minCredits: 1000, qpsLimit: 50 });
  const creditsBefore = (await consoleKeyCredits(page))?.creditsRemaining ?? 0;
  await page.goto("/batches");
  await expect(page.getByRole("heading", { name: "Batches", level: 1 })).toBeVisible();
  // The empty form says what to do; nothing to start yet.
  await expect(page.getByTestId("batch-preview-empty")).toBeVisible();
  await expect(page.getByRole("button", { name: "Start batch", exact: true })).toBeDisabled();
  // The file input's button is styled like the console's other buttons (rounded, bordered).
  const fileButton = await page
    .getByLabel("Or upload a CSV/TXT file")
    .evaluate((input) => getComputedStyle(input, "::file-selector-button").borderTopLeftRadius);
  expect(fileButton).not.toBe("0px");

  // A list over the limit says so before Start (and Start stays off).
  await page.getByLabel("Operation").selectOption("event_details_id");
  await expect(page.getByLabel("Paste event ids")).toBeVisible();
  const ids = Array.from({ length: MAX_INPUTS + 5 }, (_, index) => String(2_000_000_000_000_000 + index)).join("\n");
  await page.getByLabel("Or upload a CSV/TXT file").setInputFiles({ name: "ids.txt", mimeType: "text/plain", buffer: Buffer.from(ids) });
  await expect(page.getByTestId("over-limit")).toHaveText("inputs: over the limit of 10,000 by 5");
  await expect(page.getByRole("button", { name: /^Start batch/ })).toBeDisabled();
  await page.getByRole("button", { name: "remove" }).click();
  await expect(page.getByTestId("batch-preview-empty")).toBeVisible();

  await page.getByLabel("Operation").selectOption("event_details");
  await expect(page.getByLabel("Paste event page URLs")).toBeVisible();
  await page.getByLabel("Or upload a CSV/TXT file").setInputFiles({ name: "campaign.csv", mimeType: "text/csv", buffer: Buffer.from(csvFile()) });

  // The column holding URLs is picked for the analyst; the others can be chosen.
  await expect(page.getByLabel("Column with the inputs")).toHaveValue("1");
  const preview = page.getByTestId("batch-preview");
  await expect(preview.getByTestId("accepted-count")).toHaveText("13");
  await expect(preview.getByTestId("rejected-count")).toHaveText("1");
  await expect(preview.getByTestId("duplicate-count")).toHaveText("1");
  await expect(preview.getByTestId("rejected-list")).toContainText("https://elsewhere.example/events/1/ — not an event URL");
  await expect(preview.getByTestId("batch-cost")).toContainText("Maximum cost: 52 credits");
  await expect(page.getByLabel("Credit cap")).toHaveValue("52");

  await page.getByRole("button", { name: "Start batch of 13" }).click();
  const detail = page.getByTestId("batch-detail");
  // The form is back to its empty state, the file input cleared.
  await expect(page.getByTestId("batch-preview-empty")).toBeVisible();
  await expect(page.getByRole("button", { name: "Start batch", exact: true })).toBeDisabled();
  await expect(page.getByLabel("Or upload a CSV/TXT file")).toHaveValue("");
  await expect(detail.getByRole("progressbar", { name: "Batch progress" })).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
  await expect(detail.getByTestId("batch-status")).toHaveText("Done");
  await expect(detail.getByTestId("batch-succeeded")).toHaveText("12");
  await expect(detail.getByTestId("batch-not-found")).toHaveText("1");
  await expect(detail.getByTestId("batch-credits")).toHaveText("48 of 52");
  await expect(page.getByRole("list", { name: "Batches" }).getByRole("button").first()).toContainText("13/13");
  await expect(page.getByRole("list", { name: "Batches" }).getByTestId("batch-created").first()).toHaveText(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
  // The results table follows the batch to its end: no row is left "pending" or "running".
  const results = detail.getByRole("table");
  await expect(results.getByRole("cell", { name: /^(pending|running)$/ })).toHaveCount(0);
  await expect(results.getByRole("cell", { name: "200", exact: true })).toHaveCount(12);
  await expect(results.getByRole("cell", { name: "404", exact: true })).toHaveCount(1);

  const [download] = await Promise.all([page.waitForEvent("download"), detail.getByRole("link", { name: "Download CSV" }).click()]);
  const text = fs.readFileSync(await download.path(), "utf8");
  // A console download starts with a UTF-8 byte-order mark, so Excel reads it as UTF-8.
  expect(text.startsWith("\uFEFF")).toBe(true);
  const rows = parseCsv(text.slice(1));
  const header = rows[0] ?? [];
  const column = (name: string) => header.indexOf(name);
  const records = rows.slice(1);
  expect(records).toHaveLength(13);
  const found = records.filter((row) => row[column("status")] === "200");
  expect(found.map((row) => row[column("event_id")]).sort()).toEqual([...EVENT_IDS].sort());
  expect(found.every((row) => row[column("credits")] === "4" && (row[column("title")] ?? "") !== "")).toBe(true);
  const missing = records.filter((row) => row[column("status")] === "404");
  expect(missing.map((row) => [row[column("input")], row[column("message")]])).toEqual([[`https://${HOST}/events/${UNKNOWN_ID}/`, "Event not found"]]);
  expect((await consoleKeyCredits(page))?.creditsRemaining).toBe(creditsBefore - 48);
});

test("a URL under Event by id offers the switch; the operation stays chosen; the card and the list agree while it runs", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAsAdminWithConsoleKey(page, { minCredits: 1000 });
  // A slow console key (4 lookups a second), so the batch runs for a few seconds of polling.
  const slowKey = await postFromPage(page, "/api/keys", { name: `e2e slow batch key ${Date.now()}`, credits: 1000, qpsLimit: 4, useForConsole: true });
  expect(slowKey.status, slowKey.text).toBe(201);
  await page.goto("/batches");

  // An event page URL pasted under "Event by id": the choice is kept, and the switch is offered.
  await page.getByLabel("Operation").selectOption("event_details_id");
  const url = `https://${HOST}/events/${EVENT_IDS[0] ?? ""}/`;
  await page.getByLabel("Paste event ids").fill(url);
  await expect(page.getByLabel("Operation")).toHaveValue("event_details_id");
  const offer = page.getByTestId("switch-operation");
  await expect(offer).toContainText("This looks like an event page URL — look it up by URL instead?");
  await offer.getByRole("button").click();
  await expect(page.getByLabel("Operation")).toHaveValue("event_details");
  await expect(page.getByLabel("Paste event page URLs")).toHaveValue(url);
  await expect(page.getByTestId("accepted-count")).toHaveText("1");
  await expect(page.getByTestId("switch-operation")).toHaveCount(0);

  // 18 ids by id: 12 found, 6 not found.
  await page.getByLabel("Operation").selectOption("event_details_id");
  const unknown = Array.from({ length: 6 }, (_, index) => String(9_000_000_000_000_101 + index));
  await page.getByLabel("Paste event ids").fill([...EVENT_IDS, ...unknown].join("\n"));
  await expect(page.getByTestId("accepted-count")).toHaveText("18");
  await page.getByRole("button", { name: "Start batch of 18" }).click();
  const detail = page.getByTestId("batch-detail");
  await expect(detail).toBeVisible();
  // The form is empty again, but keeps the operation chosen for the next list.
  await expect(page.getByTestId("batch-preview-empty")).toBeVisible();
  await expect(page.getByLabel("Operation")).toHaveValue("event_details_id");

  // Sampled every frame until both say Done: the card and its row in the list never disagree.
  const disagreements = await page.evaluate(async () => {
    const seen: string[] = [];
    const deadline = Date.now() + 60_000;
    const read = () => {
      const card = document.querySelector('[data-testid="batch-detail"]');
      const row = document.querySelector('[aria-label="Batches"] button[aria-current="true"]');
      const cardDone = /([\d,]+) \/ ([\d,]+) done/.exec(card?.textContent ?? "")?.slice(1, 3).join("/") ?? "?";
      const rowDone = /([\d,]+)\/([\d,]+) ·/.exec(row?.textContent ?? "")?.slice(1, 3).join("/") ?? "?";
      const cardStatus = card?.querySelector('[data-testid="batch-status"]')?.textContent ?? "?";
      const rowStatus = row?.querySelector("span:last-child")?.textContent ?? "?";
      return { card: `${cardDone} ${cardStatus}`, row: `${rowDone} ${rowStatus}` };
    };
    for (;;) {
      const now = read();
      if (now.card !== now.row) seen.push(`card ${now.card} / list ${now.row}`);
      if (now.card.endsWith(" Done") && now.row.endsWith(" Done")) break;
      if (Date.now() > deadline) throw new Error(`not done: ${now.card}`);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return [...new Set(seen)];
  });
  expect(disagreements).toEqual([]);
  await expect(detail.getByTestId("batch-succeeded")).toHaveText("12");
  await expect(detail.getByTestId("batch-not-found")).toHaveText("6");
  await expect(detail.getByRole("button", { name: "Pause" })).toHaveCount(0);
  await expect(detail.getByRole("button", { name: "Cancel" })).toHaveCount(0);

  // Back on the page later, the form still offers the operation last started.
  await page.reload();
  await expect(page.getByRole("list", { name: "Batches" }).getByRole("button").first()).toContainText("Event by id");
  await expect(page.getByLabel("Operation")).toHaveValue("event_details_id");
  await expect(page.getByLabel("Paste event ids")).toBeVisible();
});
