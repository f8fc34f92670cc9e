import fs from "node:fs";
import { parseCsv } from "../tests/support/csv";
import { expect, test, type Page } from "@playwright/test";
import { postFromPage, signInAsAdminWithConsoleKey } from "./support/session";
import { collectErrors } from "./support/page-errors";

/**
 * The Usage page (docs/monitoring.md "In the console"): a fresh console key with 5 credits makes
 * five lookups (404, 200, 402, 400, 200 — the last one empties it); the /usage page scoped to that
 * key shows exactly those numbers, its charts render bars, the log filters down, and both CSV
 * downloads hold exactly those rows. Screenshots in light and dark mode.
 */
type Call = { path: string; status: number; credits: number; operation: string; requestId: string };

const colorSchemes = ["light", "dark"] as const;


const download = async (page: Page, testId: string): Promise<{ name: string; rows: string[][] }> => {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByTestId(testId).click()]);
  const text = fs.readFileSync(await file.path(), "utf8");
  // A console download starts with a UTF-8 byte-order mark, so Excel reads it as UTF-8.
  expect(text.startsWith("\uFEFF")).toBe(true);
  return { name: file.suggestedFilename(), rows: parseCsv(text.slice(1)) };
};

/** A new console key with `credits`, through the console's own API (same-origin, as the UI does it). */
const newConsoleKey = async (page: Page, credits: number): Promise<string> => {
  const created = await postFromPage(page, "/api/keys", { name: `e2e usage ${Date.now()}`, credits, qpsLimit: 100, useForConsole: true });
  expect(created.status, created.text).toBe(201);
  return (JSON.parse(created.text) as { key: { id: string } }).key.id;
};

const LOOKUPS = [
  { path: "/api/console/lookup/event_details_id?event_id=1000000000009999", status: 404, credits: 0, operation: "event_details_id" },
  { path: "/api/console/lookup/event_details_id?event_id=1000000000000001", status: 200, credits: 4, operation: "event_details_id" },
  { path: "/api/console/lookup/followers?userid=2000000002", status: 402, credits: 0, operation: "followers" },
  { path: "/api/console/lookup/followers", status: 400, credits: 0, operation: "followers" },
  { path: "/api/console/lookup/get_user_publications?urn=urn:li:member:3000000001", status: 200, credits: 1, operation: "get_user_publications" },
] as const;

test.describe("usage page", () => {
  let keyId = "";
  let calls: Call[] = [];

  test.beforeEach(async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    if (keyId !== "") return;
    keyId = await newConsoleKey(page, 5);
    calls = [];
    for (const lookup of LOOKUPS) {
      const response = await page.request.get(lookup.path);
      expect(response.status(), lookup.path).toBe(lookup.status);
      calls.push({ ...lookup, requestId: response.headers()["x-request-id"] ?? "" });
    }
  });

  test("shows the key's exact totals, charts with data and the forecast", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await page.goto(`/usage?keyId=${keyId}`);
    await expect(page.getByRole("heading", { level: 1, name: "Usage" })).toBeVisible();
    await expect(page.getByTestId("total-requests")).toHaveText("5");
    await expect(page.getByTestId("total-successful")).toHaveText("2");
    await expect(page.getByTestId("total-credits")).toHaveText("5");
    await expect(page.getByTestId("total-error-rate")).toHaveText(/60\s?%/);
    await expect(page.getByTestId("total-remaining")).toHaveText("0");

    for (const chart of ["chart-credits-per-day", "chart-requests-by-status", "chart-credits-by-key", "chart-latency"]) {
      await expect(page.getByTestId(chart).locator(".recharts-bar-rectangle").first(), chart).toBeVisible();
    }
    // Credits per day: two operations were charged today, so two stacked segments.
    await expect(page.getByTestId("chart-credits-per-day").locator(".recharts-bar-rectangle path, .recharts-bar-rectangle rect")).toHaveCount(2);
    await expect(page.getByTestId(`forecast-row-${keyId}`).getByTestId("forecast-days-left")).toHaveText("empty");

    // Every call was made today: "Today" shows the same numbers; a custom range before today none.
    await page.getByTestId("period-today").click();
    await expect(page.getByTestId("total-requests")).toHaveText("5");
    await page.getByTestId("period-custom").click();
    await page.getByTestId("custom-from").fill("2020-01-01");
    await page.getByTestId("custom-to").fill("2020-01-31");
    await expect(page.getByTestId("total-requests")).toHaveText("0");
    await expect(page.getByTestId("charts-empty")).toBeVisible();
    await page.getByTestId("custom-from").fill("2020-02-01");
    await expect(page.getByText("The first day must not be after the last.")).toBeVisible();

    // Reaching 0 raised one "zero" alert for the banner.
    const alerts = (await (await page.request.get("/api/alerts")).json()) as { alerts: { keyId: string; kind: string }[] };
    expect(alerts.alerts.filter((alert) => alert.keyId === keyId)).toEqual([expect.objectContaining({ kind: "zero" })]);
    expect(errors).toEqual([]);
  });

  test("the request log lists the calls newest first and filters by status, operation and request id", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await page.goto(`/usage?keyId=${keyId}`);
    const rows = page.getByTestId("log-row");
    await expect(rows).toHaveCount(5);
    expect(await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute("data-request-id")))).toEqual(
      [...calls].reverse().map((call) => call.requestId),
    );
    expect(await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute("data-status")))).toEqual(
      [...calls].reverse().map((call) => String(call.status)),
    );

    await page.getByTestId("log-filter-status").selectOption("4xx");
    await expect(rows).toHaveCount(3);
    expect((await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute("data-status")))).sort()).toEqual(["400", "402", "404"]);

    await page.getByTestId("log-filter-status").selectOption("");
    await page.getByTestId("log-filter-operation").selectOption("followers");
    await expect(rows).toHaveCount(2);
    await expect(rows.getByTestId("log-operation")).toHaveText([/Followers/, /Followers/]);
    await expect(page.getByText("daily cap reached")).toHaveCount(0);
    await expect(rows.first().getByText("out of credits")).toHaveCount(0);
    await expect(rows.nth(1).getByText("out of credits")).toBeVisible();

    await page.getByTestId("log-filter-operation").selectOption("");
    const notFound = calls[0]?.requestId ?? "";
    await page.getByTestId("log-filter-request-id").fill(notFound);
    await page.getByTestId("log-apply").click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-request-id", notFound);
    await expect(rows.first().getByTestId("log-status")).toHaveText("404");

    await page.getByTestId("log-filter-request-id").fill("not-a-request-id");
    await page.getByTestId("log-apply").click();
    await expect(page.getByTestId("log-filter-error")).toBeVisible();
    expect(errors).toEqual([]);
  });

  test("downloads the log and the daily totals as CSV holding exactly the calls", async ({ page }) => {
    await page.goto(`/usage?keyId=${keyId}`);
    await expect(page.getByTestId("log-row")).toHaveCount(5);

    const events = await download(page, "download-events-csv");
    expect(events.name).toMatch(/^usage-events-.*\.csv$/);
    const [header, ...rows] = events.rows;
    expect(header).toEqual([
      "request_id", "created_at", "key_id", "key_name", "operation", "status", "credits_charged", "latency_ms", "params_summary", "reason",
      "requests",
    ]);
    expect(rows.map((row) => [row[0], row[2], row[4], row[5], row[6]])).toEqual(
      [...calls].reverse().map((call) => [call.requestId, keyId, call.operation, String(call.status), String(call.credits)]),
    );
    for (const row of rows) expect(row[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(rows.find((row) => row[5] === "402")?.[9]).toBe("credits");

    const daily = await download(page, "download-daily-csv");
    const [dailyHeader, ...dailyRows] = daily.rows;
    expect(dailyHeader).toEqual(["day", "key_id", "key_name", "operation", "status", "requests", "credits", "latency_ms_sum"]);
    expect(dailyRows.every((row) => row[1] === keyId)).toBe(true);
    expect(dailyRows.reduce((sum, row) => sum + Number(row[5]), 0)).toBe(5);
    expect(dailyRows.reduce((sum, row) => sum + Number(row[6]), 0)).toBe(5);
  });

  for (const colorScheme of colorSchemes) {
    test(`saves a full-page screenshot in ${colorScheme} mode`, async ({ page }) => {
      const errors = collectErrors(page, { expectFailedRequests: true });
      await page.emulateMedia({ colorScheme });
      await page.goto(`/usage?keyId=${keyId}`);
      await expect(page.getByTestId("chart-latency").locator(".recharts-bar-rectangle").first()).toBeVisible();
      await expect(page.getByTestId("log-row")).toHaveCount(5);
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      await page.screenshot({ path: `test-results/screenshots/usage-${colorScheme}.png`, fullPage: true });
      expect(errors).toEqual([]);
    });
  }
});

test.describe("a flood of refusals", () => {
  test("the request log shows the refusals past 10 in a second as one counted line, and counts every one", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    const floodKey = await newConsoleKey(page, 0);
    const answers = await Promise.all(Array.from({ length: 40 }, () => page.request.get("/api/console/lookup/followers?userid=2000000002")));
    expect(answers.map((answer) => answer.status())).toEqual(Array(40).fill(402));

    await page.goto(`/usage?keyId=${floodKey}`);
    await expect(page.getByTestId("total-requests")).toHaveText("40");
    const statuses = page.getByTestId("log-status");
    await expect(statuses.filter({ hasText: "×" }).first()).toHaveText(/^\d+ × 402$/);
    const counts = await statuses.evaluateAll((elements) => elements.map((element) => Number(element.getAttribute("data-requests"))));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(40);
    expect(counts.length).toBeLessThan(40);
  });
});
