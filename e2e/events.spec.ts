import { expect, test, type Locator, type Page } from "@playwright/test";
import type { EventRecord } from "../lib/records/records";
import { consoleKeyCredits, postFromPage, signInAsAdminWithConsoleKey } from "./support/session";
import { collectErrors } from "./support/page-errors";

/**
 * The Events page: look up an event by URL and by id and check the card against the API's own
 * answer; the credit meter drops by the cost after a success and not after a failure; a reload
 * never buys a lookup by itself; related events and recent lookups re-open in the page; the XSS
 * probe event renders as text; a key with 1 credit shows the 402 sentence. Screenshots in light
 * and dark mode.
 */
const EVENT_COST = 4;
const FIRST_EVENT = "1000000000000001";
const CANCELED_EVENT = "1000000000000013";
const OPEN_ENDED_EVENT = "1000000000000007";
const XSS_EVENT = "1000000000000040";
const UNKNOWN_EVENT = "1000000000009999";
const eventUrl = (eventId: string) => `https://events.demo.test/events/${eventId}/`;

const colorSchemes = ["light", "dark"] as const;

/** Any alert/confirm/prompt means injected script ran: record it (and dismiss it). */
const collectDialogs = (page: Page): string[] => {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return dialogs;
};

/** Paths and queries of the event lookups the page sends, in order. */
const recordLookups = (page: Page): string[] => {
  const lookups: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith("/api/console/lookup/event_details")) lookups.push(`${url.pathname}${url.search}`);
  });
  return lookups;
};

const creditsRemaining = async (page: Page): Promise<number> => {
  const key = await consoleKeyCredits(page);
  if (!key) throw new Error("no console key");
  return key.creditsRemaining;
};

/** The credit meter in the console shell (the visible one, should the shell render two). */
const meter = (page: Page): Locator => page.getByTestId("credit-meter").filter({ visible: true });

const meterCredits = async (page: Page): Promise<number> => {
  await expect(meter(page)).toHaveAttribute("data-credits-remaining", /^\d+$/);
  return Number(await meter(page).getAttribute("data-credits-remaining"));
};

/** The API's own answer for an event (this call costs credits too: take balances before it). */
const apiEvent = async (page: Page, eventId: string): Promise<EventRecord> => {
  const response = await page.request.get(`/api/console/lookup/event_details_id?event_id=${eventId}`);
  expect(response.status(), `lookup of ${eventId}`).toBe(200);
  const body = (await response.json()) as { code: number; data: { event: EventRecord } };
  expect(body.code).toBe(0);
  return body.data.event;
};

const textContent = (locator: Locator): Promise<string | null> => locator.evaluate((element) => element.textContent);

const runLookup = async (page: Page, input: string) => {
  await page.getByTestId("event-input").fill(input);
  await page.getByTestId("event-run").click();
};

/** The card's fields, checked against the record the API returns. */
const expectCardMatches = async (page: Page, event: EventRecord) => {
  const card = page.getByTestId("event-card");
  await expect(card).toHaveAttribute("data-event-id", event.event_id);
  expect(await textContent(card.getByTestId("event-title"))).toBe(event.title);
  expect(await textContent(card.getByTestId("event-time"))).toBe(event.local_formatted_time);
  expect(await textContent(card.getByTestId("event-location"))).toBe(event.location_text);
  // React text nodes hold the details verbatim: line breaks, emoji, hashtags (in spans), markup.
  expect(await textContent(card.getByTestId("event-details"))).toBe(event.details);
  await expect(card.getByTestId("event-details")).toHaveCSS("white-space", "pre-line");
  await expect(card.getByTestId("event-canceled")).toHaveCount(event.is_canceled ? 1 : 0);
  await expect(card.getByTestId("event-map-link")).toHaveAttribute(
    "href",
    `https://www.openstreetmap.org/?mlat=${event.lat}&mlon=${event.lng}#map=16/${event.lat}/${event.lng}`,
  );
  for (const host of event.hosts) await expect(card.getByTestId("event-hosts")).toContainText(`@${host}`);
  await expect(card.getByTestId("event-responded")).toContainText(new Intl.NumberFormat("en-US").format(event.responded_count));
  for (const related of event.related_events) {
    await expect(card.getByTestId(`related-event-${related.event_id}`)).toContainText(related.title);
  }
  const cover = card.getByTestId("event-cover");
  await expect(cover).toHaveAttribute("alt", `Cover image of ${event.title}`);
  await expect(cover).toHaveAttribute("width", "1200");
  await expect(cover).toHaveAttribute("height", "630");
};

test.describe("events page", () => {
  test("looks up an event by URL: the card matches the API and the meter drops by 4", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    const dialogs = collectDialogs(page);
    await signInAsAdminWithConsoleKey(page);
    const lookups = recordLookups(page);
    await page.goto("/events");

    const before = await creditsRemaining(page);
    expect(await meterCredits(page)).toBe(before);
    await expect(meter(page).getByTestId("credit-meter-cost")).toContainText(`${EVENT_COST} credits`);
    // At 1280 px the key's whole name shows (it wraps in the sidebar): nothing of it is cut off.
    await page.setViewportSize({ width: 1280, height: 800 });
    const keyName = meter(page).getByTestId("credit-meter-key-name");
    const key = await consoleKeyCredits(page);
    const keys = (await (await page.request.get("/api/keys")).json()) as { keys: Array<{ id: string; name: string }> };
    const fullName = keys.keys.find((candidate) => candidate.id === key?.id)?.name ?? "";
    expect(fullName.length).toBeGreaterThan(12);
    await expect(keyName).toHaveText(fullName);
    for (const box of [keyName, meter(page).getByTestId("credit-meter-key")]) {
      const clipped = await box.evaluate((element) => ({
        wide: element.scrollWidth - element.clientWidth,
        tall: element.scrollHeight - element.clientHeight,
      }));
      expect(clipped, "the key name is not cut").toEqual({ wide: 0, tall: 0 });
    }

    await page.getByTestId("event-input").fill(eventUrl(FIRST_EVENT));
    await expect(page.getByTestId("operation-hint")).toHaveText(`By URL — event_details — ${EVENT_COST} credits`);
    await page.getByTestId("event-run").click();
    await expect(page.getByTestId("event-card")).toBeVisible();
    await expect(page).toHaveURL(`/events?q=${encodeURIComponent(eventUrl(FIRST_EVENT))}`);
    expect(lookups).toEqual([`/api/console/lookup/event_details?url=${encodeURIComponent(eventUrl(FIRST_EVENT))}`]);

    // The meter follows the lookup without a reload, and agrees with the server.
    await expect(meter(page)).toHaveAttribute("data-credits-remaining", String(before - EVENT_COST));
    expect(await creditsRemaining(page)).toBe(before - EVENT_COST);

    await expectCardMatches(page, await apiEvent(page, FIRST_EVENT));
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("looks up an event by id; a reload shows a Run button instead of buying the lookup again", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    const lookups = recordLookups(page);
    await page.goto("/events");

    await page.getByTestId("event-input").fill(CANCELED_EVENT);
    await expect(page.getByTestId("operation-hint")).toHaveText(`By id — event_details_id — ${EVENT_COST} credits`);
    await page.getByTestId("event-run").click();
    await expect(page.getByTestId("event-card")).toBeVisible();
    await expect(page).toHaveURL(`/events?q=${CANCELED_EVENT}`);
    await expect(page.getByTestId("event-canceled")).toHaveText("Canceled");
    expect(lookups).toEqual([`/api/console/lookup/event_details_id?event_id=${CANCELED_EVENT}`]);
    await expectCardMatches(page, await apiEvent(page, CANCELED_EVENT));

    const balance = await creditsRemaining(page);
    await page.reload();
    await expect(page.getByTestId("event-input")).toHaveValue(CANCELED_EVENT);
    await expect(page.getByTestId("event-not-run")).toContainText(`${EVENT_COST} credits`);
    await page.waitForLoadState("networkidle");
    expect(lookups).toHaveLength(1);
    expect(await creditsRemaining(page)).toBe(balance);

    await page.getByTestId("event-run-saved").click();
    await expect(page.getByTestId("event-card")).toBeVisible();
    expect(lookups).toHaveLength(2);
    expect(errors).toEqual([]);
  });

  test("shows an open-ended event without an end time", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    await page.goto("/events");
    await runLookup(page, OPEN_ENDED_EVENT);
    await expect(page.getByTestId("event-card")).toContainText("no end time given");
    await expectCardMatches(page, await apiEvent(page, OPEN_ENDED_EVENT));
  });

  test("an unknown event says so and costs nothing; the meter does not move", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    await page.goto("/events");
    const before = await meterCredits(page);

    await runLookup(page, UNKNOWN_EVENT);
    const error = page.getByTestId("lookup-error");
    await expect(error).toContainText("No such event.");
    await expect(error).toContainText("Nothing was charged.");
    await expect(page.getByTestId("event-card")).toHaveCount(0);
    await expect(meter(page).getByTestId("credit-meter-last")).toContainText("nothing charged");
    await expect(meter(page)).toHaveAttribute("data-credits-remaining", String(before));
    expect(await creditsRemaining(page)).toBe(before);
    expect(errors).toEqual([]);
  });

  test("input that is neither an event URL nor an id is explained and never sent", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    const lookups = recordLookups(page);
    await page.goto("/events");

    const hint = page.getByTestId("operation-hint");
    await page.getByTestId("event-input").fill("not an event");
    await expect(hint).toHaveText("Enter an event page URL or an event id (digits only).");
    await page.getByTestId("event-input").fill("http://events.demo.test/events/1/");
    await expect(hint).toHaveText("Use the https:// address of the event page.");
    await page.getByTestId("event-input").fill("https://events.demo.test/venues/1/");
    await expect(hint).toContainText("must point to an event page");
    await page.getByTestId("event-run").click();
    await expect(page.getByTestId("event-input")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByTestId("event-input")).toBeFocused();
    await expect(page.getByTestId("event-input")).toHaveAccessibleDescription(/must point to an event page/);
    expect(lookups).toEqual([]);

    // An empty Run says what is missing, in the same red line as every lookup field.
    await page.getByTestId("event-input").fill("");
    await page.getByTestId("event-run").click();
    const problem = page.getByTestId("event-input-error");
    await expect(problem).toHaveText("Enter an event page URL or an event id.");
    await expect(problem).toHaveClass(/text-danger/);
    await expect(page.getByTestId("event-input")).toHaveAccessibleDescription("Enter an event page URL or an event id.");

    // A new, invalid input hides the card of the previous lookup (and its request id).
    await runLookup(page, FIRST_EVENT);
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", FIRST_EVENT);
    await runLookup(page, "1".repeat(24));
    await expect(page.getByTestId("event-input-error")).toBeVisible();
    await expect(page.getByTestId("event-card")).toHaveCount(0);
    await expect(page.getByTestId("event-lookup-meta")).toHaveCount(0);
    expect(lookups).toHaveLength(1);
  });

  test("the XSS probe event renders its markup as text and runs nothing", async ({ page }) => {
    const dialogs = collectDialogs(page);
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    await page.goto("/events");

    await runLookup(page, eventUrl(XSS_EVENT));
    const card = page.getByTestId("event-card");
    await expect(card).toBeVisible();
    await expect(card.getByTestId("event-title")).toContainText("<Safe>");
    const details = card.getByTestId("event-details");
    await expect(details).toContainText("<script>alert('xss')</script>");
    await expect(details).toContainText('<img src=x onerror=alert(1)>');
    await expect(details).toContainText('<a href="javascript:alert(document.cookie)">click me</a>');
    // Nothing in the card became an element: no script, no injected img/svg/a with handlers.
    expect(await card.locator("script, svg, iframe, [onerror], [onload]").count()).toBe(0);
    expect(await card.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await details.locator("*:not([data-hashtag])").count()).toBe(0);

    await expectCardMatches(page, await apiEvent(page, XSS_EVENT));
    await page.waitForTimeout(500);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("related events and recent lookups open in the same page; cached cards cost nothing", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    const lookups = recordLookups(page);
    await page.goto("/events");

    await runLookup(page, FIRST_EVENT);
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", FIRST_EVENT);
    // The lookup just charged is not "shown again without a charge".
    await expect(page.getByTestId("event-lookup-meta")).toContainText(`${EVENT_COST} credits charged`);
    await expect(page.getByText("already looked up here")).toHaveCount(0);
    const event = await apiEvent(page, FIRST_EVENT);
    const related = event.related_events[0];
    if (!related) throw new Error(`demo event ${FIRST_EVENT} has no related events`);

    await page.getByTestId(`related-event-${related.event_id}`).click();
    await expect(page).toHaveURL(`/events?q=${related.event_id}`);
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", related.event_id);
    await expect(page.getByTestId("event-title")).toHaveText(related.title);
    expect(lookups).toHaveLength(2);

    // Back shows the first card again from the cache: no new lookup.
    await page.goBack();
    await expect(page).toHaveURL(`/events?q=${FIRST_EVENT}`);
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", FIRST_EVENT);
    await expect(page.getByTestId("event-input")).toHaveValue(FIRST_EVENT);
    expect(lookups).toHaveLength(2);

    // The recent list (from the usage records) re-opens the related event, still cached: free.
    const recent = page.getByTestId("recent-lookups").locator(`[data-testid="recent-lookup"][data-value="${related.event_id}"]`);
    await expect(recent).toBeVisible();
    await expect(recent.getByTestId("recent-lookup-cost")).toContainText("free");
    await recent.click();
    await expect(page).toHaveURL(`/events?q=${related.event_id}`);
    await expect(page.getByTestId("event-card")).toHaveAttribute("data-event-id", related.event_id);
    expect(lookups).toHaveLength(2);
    // This time the card really was shown again without a charge, and the page says so.
    await expect(page.getByTestId("event-shown-again")).toHaveText(/already looked up here: shown again without a charge/);

    // "Run again" is an explicit, paid refresh.
    const before = await meterCredits(page);
    await page.getByTestId("event-run-again").click();
    await expect(meter(page)).toHaveAttribute("data-credits-remaining", String(before - EVENT_COST));
    expect(lookups).toHaveLength(3);
    await expect(page.getByText("already looked up here")).toHaveCount(0);
    // A script's call with an API key of the same user is not one of the console's recent lookups.
    const issued = await postFromPage(page, "/api/keys", { name: `e2e script ${Date.now()}`, credits: 100, qpsLimit: 100 });
    expect(issued.status, issued.text).toBe(201);
    const { token } = JSON.parse(issued.text) as { token: string };
    const scriptUrl = "https://www.events.demo.test/events/1000000000000033/";
    const scripted = await page.request.get(`/v1/eventsite/event_details?url=${encodeURIComponent(scriptUrl)}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(scripted.status()).toBe(200);
    await page.reload();
    const recentList = page.getByTestId("recent-lookups");
    await expect(recentList.locator(`[data-testid="recent-lookup"][data-value="${related.event_id}"]`)).toBeVisible();
    await expect(recentList.locator(`[data-testid="recent-lookup"][data-value="${scriptUrl}"]`)).toHaveCount(0);
  });

  test("a key with 1 credit shows the out-of-credits sentence, a link to Keys, and charges nothing", async ({ page }) => {
    const previous = await signInAsAdminWithConsoleKey(page);
    await page.goto("/events");
    const created = await postFromPage(page, "/api/keys", { name: "e2e one credit", credits: 1, qpsLimit: 100, useForConsole: true });
    expect(created.status, created.text).toBe(201);
    try {
      await page.reload();
      await expect(meter(page)).toHaveAttribute("data-credits-remaining", "1");
      await expect(meter(page)).toHaveAttribute("data-level", "ok");

      await runLookup(page, FIRST_EVENT);
      const error = page.getByTestId("lookup-error");
      await expect(error).toContainText("This key is out of credits — add credits to it or choose another console key on the Keys page.");
      await expect(error).toContainText("Nothing was charged.");
      await expect(error.getByRole("link", { name: "Go to Keys" })).toHaveAttribute("href", "/keys");
      await expect(meter(page)).toHaveAttribute("data-credits-remaining", "1");
    } finally {
      const restored = await postFromPage(page, `/api/keys/${encodeURIComponent(previous.id)}/console`, {});
      expect(restored.status).toBe(200);
    }
  });

  for (const colorScheme of colorSchemes) {
    test(`saves a full-page screenshot with a card in ${colorScheme} mode`, async ({ page }) => {
      const errors = collectErrors(page, { expectFailedRequests: true });
      await page.emulateMedia({ colorScheme });
      await signInAsAdminWithConsoleKey(page);
      await page.goto("/events");
      await runLookup(page, FIRST_EVENT);
      const cover = page.getByTestId("event-cover");
      await expect(cover).toBeVisible();
      await expect.poll(() => cover.evaluate((image) => image instanceof HTMLImageElement && image.complete && image.naturalWidth > 0)).toBe(true);
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      await page.screenshot({ path: `test-results/screenshots/events-${colorScheme}.png`, fullPage: true });
      expect(errors).toEqual([]);
    });
  }
});
