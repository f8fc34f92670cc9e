import fs from "node:fs";
import { parseCsv } from "../tests/support/csv";
import { expect, test, type Download, type Page } from "@playwright/test";
import { consoleKeyCredits, signInAsAdminWithConsoleKey } from "./support/session";
import { collectErrors } from "./support/page-errors";

/**
 * The Followers and Publications pages: the virtualised infinite list (small DOM, every follower
 * once, 2 credits a page, never a page twice), "load all" within a budget, shareable URLs that
 * do not buy lookups by themselves, the publications pager with the page in the URL (reload and
 * Back), exports, and screenshots in light and dark mode.
 */
const BIG_USER = "2000000001"; // 10,000 followers → 400 pages of 25
const SMALL_USER = "2000000002"; // 30 followers → 2 pages
const EMPTY_USER = "2000000003"; // no followers
const BIG_PROFILE = "urn:li:member:3000000001"; // 45 publications → 5 pages of 10
const EMPTY_PROFILE = "urn:li:member:3000000003";

const FOLLOWERS_COST = 2;
const PUBLICATIONS_COST = 1;
const ROW_HEIGHT_PX = 64;

const colorSchemes = ["light", "dark"] as const;

/** URLs of the console lookups of one operation the page sends, in order. */
const recordLookups = (page: Page, operation: "followers" | "get_user_publications"): URL[] => {
  const urls: URL[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname === `/api/console/lookup/${operation}`) urls.push(url);
  });
  return urls;
};

const creditsRemaining = async (page: Page): Promise<number> => {
  const key = await consoleKeyCredits(page);
  if (!key) throw new Error("no console key");
  return key.creditsRemaining;
};

const numberIn = async (page: Page, testId: string): Promise<number> =>
  Number(await page.getByTestId(testId).getAttribute("data-value"));


const downloadText = async (page: Page, testId: string): Promise<{ download: Download; text: string }> => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId(testId).click()]);
  const file = await download.path();
  return { download, text: fs.readFileSync(file, "utf8") };
};

/** The pager and the list both show page `page` (not the previous page kept while it loads). */
const expectPublicationsPage = async (page: Page, number: number, totalPages = 5) => {
  await expect(page).toHaveURL(new RegExp(`[?&]page=${number}(&|$)`));
  await expect(page.getByTestId("pager-summary")).toContainText(`Page ${number} of ${totalPages}`);
  await expect(page.getByTestId("publications-list")).toHaveAttribute("data-page", String(number));
  await expect(page.getByTestId("publications-list")).toHaveAttribute("aria-busy", "false");
};

/** Types `value` into a paged lookup's field (`<view>-input`) and presses its Run. */
const run = async (page: Page, view: "followers" | "publications", value: string) => {
  await page.getByTestId(`${view}-input`).fill(value);
  await page.getByTestId(`${view}-run`).click();
};

const runFollowers = async (page: Page, userId: string) => {
  await run(page, "followers", userId);
  await expect(page).toHaveURL(new RegExp(`/followers\\?userid=${userId}$`));
};

/** A value the field refuses: marked invalid at once, and no lookup is bought. */
const expectRefused = async (page: Page, view: "followers" | "publications", value: string, lookups: readonly unknown[]) => {
  await run(page, view, value);
  await expect(page.getByTestId(`${view}-input`)).toHaveAttribute("aria-invalid", "true");
  expect(lookups).toHaveLength(0);
};

/** Signs in with a console key and opens `/<view>` with nothing run yet; the lookups it sends from then on. */
const openLookupView = async (page: Page, view: "followers" | "publications"): Promise<URL[]> => {
  await signInAsAdminWithConsoleKey(page);
  const lookups = recordLookups(page, view === "followers" ? "followers" : "get_user_publications");
  await page.goto(`/${view}`);
  return lookups;
};

test.describe("followers", () => {
  test("scrolls 10,000 followers to the end: small DOM, each follower once, 2 credits a page", async ({ page }) => {
    test.setTimeout(300_000);
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page, { minCredits: 1000, qpsLimit: 1000 });
    const lookups = recordLookups(page, "followers");
    const creditsBefore = await creditsRemaining(page);

    await page.goto("/followers");
    await runFollowers(page, BIG_USER);
    await expect(page.getByTestId("follower-row").first()).toBeVisible();
    await expect(page.getByTestId("followers-end")).toHaveCount(0);

    // Scroll in steps a little shorter than the rendered window (view + 10 overscan rows each
    // side), so every row is in the DOM at some step; at the bottom, wait for the next page.
    const scan = await page.getByTestId("followers-scroll").evaluate(
      async (scroller, { rowHeightPx, timeoutMs }) => {
        const positionsById = new Map<string, Set<number>>();
        // Each time scrolling stops to ask: the pages held then, and what the button offered.
        const pauses: Array<{ pages: number; offer: string; stillAfterWait: number }> = [];
        const pagesHeld = () => Number(document.querySelector('[data-testid="followers-pages"]')?.getAttribute("data-value"));
        let maxRows = 0;
        let checks = 0;
        const deadline = Date.now() + timeoutMs;
        const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
        const ended = () => document.querySelector('[data-testid="followers-end"]') !== null;
        const rows = () => scroller.querySelectorAll<HTMLElement>('[data-testid="follower-row"]');
        const collect = () => {
          const current = rows();
          maxRows = Math.max(maxRows, current.length);
          checks += 1;
          for (const row of current) {
            const id = row.dataset.entityId ?? "";
            const position = Number(row.getAttribute("aria-posinset"));
            const seen = positionsById.get(id) ?? new Set<number>();
            seen.add(position);
            positionsById.set(id, seen);
          }
        };
        /** Until the row at the top of the view is rendered: the virtualiser caught up with the scroll. */
        const settle = async () => {
          const topPosition = Math.floor(scroller.scrollTop / rowHeightPx) + 1;
          while (!scroller.querySelector(`[data-testid="follower-row"][aria-posinset="${topPosition}"]`)) {
            if (Date.now() > deadline) throw new Error(`row ${topPosition} never rendered`);
            await nextFrame();
          }
        };
        const step = scroller.clientHeight + 5 * rowHeightPx;
        for (;;) {
          if (Date.now() > deadline) throw new Error(`timed out after ${positionsById.size} followers`);
          await settle();
          collect();
          const atBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1;
          if (atBottom) {
            if (ended()) break;
            const height = scroller.scrollHeight;
            while (scroller.scrollHeight === height && !ended()) {
              if (Date.now() > deadline) throw new Error(`no next page after ${positionsById.size} followers`);
              const offer = scroller.querySelector<HTMLButtonElement>('[data-testid="followers-continue"]');
              if (offer) {
                const pages = pagesHeld();
                // The first time, wait a while: a paused list buys nothing by itself.
                if (pauses.length === 0) await new Promise((resolve) => setTimeout(resolve, 1500));
                pauses.push({ pages, offer: offer.textContent ?? "", stillAfterWait: pagesHeld() });
                offer.click();
              }
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
            continue;
          }
          scroller.scrollTop = Math.min(scroller.scrollTop + step, scroller.scrollHeight - scroller.clientHeight);
          await nextFrame();
        }
        collect();
        const ids = [...positionsById.keys()];
        const positions = new Set([...positionsById.values()].flatMap((set) => [...set]));
        const onSeveralPositions = [...positionsById].filter(([, set]) => set.size > 1).map(([id]) => id);
        return { ids, positions: positions.size, onSeveralPositions, maxRows, checks, pauses };
      },
      { rowHeightPx: ROW_HEIGHT_PX, timeoutMs: 240_000 },
    );

    // Scrolling asks every 20 pages (40 credits), and a paused list fetches nothing until asked.
    expect(scan.pauses.map((pause) => pause.pages)).toEqual(Array.from({ length: 19 }, (_, index) => (index + 1) * 20));
    expect(new Set(scan.pauses.map((pause) => pause.offer))).toEqual(new Set(["Load 20 more pages (40 credits)"]));
    expect(scan.pauses[0]?.stillAfterWait).toBe(20);
    expect(scan.checks).toBeGreaterThan(400);
    expect(scan.maxRows).toBeLessThan(800);
    expect(scan.ids).toHaveLength(10_000);
    expect(new Set(scan.ids).size).toBe(10_000);
    expect(scan.positions).toBe(10_000);
    expect(scan.onSeveralPositions).toEqual([]);
    expect(await page.getByTestId("follower-row").count()).toBeLessThan(800);

    await expect(page.getByTestId("followers-end")).toHaveText(/End of list/);
    expect(await numberIn(page, "followers-loaded")).toBe(10_000);
    expect(await numberIn(page, "followers-pages")).toBe(400);
    expect(await numberIn(page, "followers-credits")).toBe(400 * FOLLOWERS_COST);

    // Never a page twice: one request by userid, then 399 distinct cursors of the same node.
    expect(lookups).toHaveLength(400);
    expect(lookups[0]?.searchParams.get("userid")).toBe(BIG_USER);
    const later = lookups.slice(1);
    expect(new Set(later.map((url) => url.searchParams.get("node_id"))).size).toBe(1);
    expect(new Set(later.map((url) => url.searchParams.get("cursor"))).size).toBe(399);

    expect(creditsBefore - (await creditsRemaining(page))).toBe(400 * FOLLOWERS_COST);
    expect(errors).toEqual([]);
  });

  test("a shared link waits for Run; load all stops at the end; the CSV holds the loaded rows", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    const lookups = recordLookups(page, "followers");

    await page.goto(`/followers?userid=${SMALL_USER}`);
    await expect(page.getByTestId("followers-input")).toHaveValue(SMALL_USER);
    await expect(page.getByTestId("followers-run")).toBeEnabled();
    await page.waitForLoadState("networkidle");
    expect(lookups, "opening a link buys nothing").toHaveLength(0);
    await expect(page.getByTestId("follower-row")).toHaveCount(0);

    const creditsBefore = await creditsRemaining(page);
    await page.getByTestId("followers-run").click();
    await expect(page.getByTestId("follower-row").first()).toBeVisible();
    await expect(page.getByTestId("follower-row").first()).toHaveAttribute("data-entity-id", /^\d+$/);
    // "Load all" stands above the list's scroll box, not below it.
    const loadAll = await page.getByTestId("load-all-start").boundingBox();
    const scroller = await page.getByTestId("followers-scroll").boundingBox();
    if (!loadAll || !scroller) throw new Error("load all or the list not laid out");
    expect(loadAll.y + loadAll.height).toBeLessThan(scroller.y);
    // Showing the first page buys nothing more: the next page waits for the reader to scroll.
    await page.waitForLoadState("networkidle");
    expect(await numberIn(page, "followers-pages")).toBe(1);
    expect(lookups).toHaveLength(1);

    await page.getByTestId("load-all-budget").fill("1");
    await expect(page.getByTestId("load-all-start")).toBeDisabled();
    await page.getByTestId("load-all-budget").fill("10");
    await expect(page.getByTestId("load-all-start")).toBeEnabled();
    await page.getByTestId("load-all-start").click();
    await expect(page.getByTestId("followers-end")).toHaveText(/End of list/);
    await expect(page.getByTestId("load-all-stop")).toBeDisabled();
    expect(await numberIn(page, "followers-loaded")).toBe(30);
    expect(await numberIn(page, "followers-pages")).toBe(2);
    expect(await numberIn(page, "followers-credits")).toBe(2 * FOLLOWERS_COST);
    expect(lookups).toHaveLength(2);
    expect(creditsBefore - (await creditsRemaining(page))).toBe(2 * FOLLOWERS_COST);

    // Back on a list this session holds (client-side navigation keeps the cache): shown at once, nothing bought.
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Publications" }).click();
    await expect(page).toHaveURL(/\/publications$/);
    await page.goBack();
    await expect(page).toHaveURL(new RegExp(`/followers\\?userid=${SMALL_USER}$`));
    await expect(page.getByTestId("followers-end")).toBeVisible();
    expect(lookups).toHaveLength(2);

    const { download, text } = await downloadText(page, "export-csv");
    expect(download.suggestedFilename()).toBe(`followers-${SMALL_USER}.csv`);
    // A byte-order mark first, so Excel reads "Zoë" as UTF-8.
    expect(text.startsWith("\uFEFF")).toBe(true);
    const rows = parseCsv(text.slice(1));
    expect(rows[0]).toEqual(["entityId", "username", "fullName", "isPrivateProfile", "verified", "imageMediumUrl"]);
    expect(rows).toHaveLength(31);
    expect(new Set(rows.slice(1).map((row) => row[0])).size).toBe(30);
    expect(rows.map((row) => row[2])).toContain("Zoë Becker");
    for (const row of rows.slice(1)) {
      // Private profiles have no image; public ones an http(s) URL.
      if (row[3] === "true") expect(row[5]).toBe("");
      else expect(row[5]).toMatch(/^https?:\/\//);
    }

    const json = await downloadText(page, "export-json");
    expect(json.download.suggestedFilename()).toBe(`followers-${SMALL_USER}.json`);
    const nodes = JSON.parse(json.text) as Array<{ entityId: string; fullName: string }>;
    expect(nodes.map((node) => node.entityId)).toEqual(rows.slice(1).map((row) => row[0]));
    expect(errors).toEqual([]);
  });

  test("an empty list, a bad id and an unknown user each say what happened", async ({ page }) => {
    const lookups = await openLookupView(page, "followers");
    await expectRefused(page, "followers", "12ab", lookups);
    await expect(page.getByText(/digits only/)).toBeVisible();

    await runFollowers(page, EMPTY_USER);
    await expect(page.getByTestId("followers-end")).toHaveText("This user has no followers.");
    await expect(page.getByTestId("export-csv")).toBeDisabled();

    const creditsBefore = await creditsRemaining(page);
    await runFollowers(page, "2999999999");
    await expect(page.getByTestId("lookup-error")).toContainText("No such user");
    expect(await creditsRemaining(page)).toBe(creditsBefore);

    // A new, invalid input hides the old answer (its panel and request id) under its red hint.
    await run(page, "followers", "12ab");
    await expect(page.getByTestId("followers-input")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByTestId("lookup-error")).toHaveCount(0);
  });
});

test.describe("publications", () => {
  test("pages through 45 publications; the page survives a reload and Back works", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    const lookups = recordLookups(page, "get_user_publications");
    const creditsBefore = await creditsRemaining(page);
    const seenTitles = new Set<string>();
    const rememberTitles = async () => {
      for (const title of await page.getByTestId("publication-item").locator("h3").allTextContents()) seenTitles.add(title);
    };

    await page.goto("/publications");
    await run(page, "publications", BIG_PROFILE);
    await expectPublicationsPage(page, 1);
    await expect(page.getByTestId("pager-summary")).toContainText("Page 1 of 5 · 45 publications");
    await expect(page.getByTestId("publication-item")).toHaveCount(10);
    await expect(page.getByTestId("pager-prev")).toBeDisabled();
    for (const number of [1, 2, 3, 4, 5]) await expect(page.getByTestId(`pager-page-${number}`)).toBeVisible();
    await rememberTitles();

    await page.getByTestId("pager-next").click();
    await expectPublicationsPage(page, 2);
    await rememberTitles();

    await page.getByTestId("pager-page-3").click();
    await expectPublicationsPage(page, 3);
    await expect(page.getByTestId("pager-page-3")).toHaveAttribute("aria-current", "page");
    const page3Titles = await page.getByTestId("publication-item").locator("h3").allTextContents();
    expect(lookups).toHaveLength(3);

    // A reload starts a new session: the page is named with its cost and waits for Run.
    await page.reload();
    await expect(page.getByTestId("publications-not-run")).toContainText(`Page 3 of the publications of ${BIG_PROFILE}`);
    await expect(page.getByTestId("publications-input")).toHaveValue(BIG_PROFILE);
    await page.waitForLoadState("networkidle");
    expect(lookups).toHaveLength(3);
    await page.getByTestId("publications-not-run-run").click();
    await expectPublicationsPage(page, 3);
    await expect(page.getByTestId("publication-item").locator("h3")).toHaveText(page3Titles);
    await rememberTitles();

    await page.goBack();
    await expectPublicationsPage(page, 2);
    await rememberTitles();

    await page.getByTestId("pager-page-5").click();
    await expectPublicationsPage(page, 5);
    await expect(page.getByTestId("pager-summary")).toContainText("last page");
    await expect(page.getByTestId("publication-item")).toHaveCount(5);
    await expect(page.getByTestId("pager-next")).toBeDisabled();
    await rememberTitles();

    // Going back to a page held in this session is free.
    const lookupsSoFar = lookups.length;
    await page.getByTestId("pager-page-3").click();
    await expectPublicationsPage(page, 3);
    expect(lookups).toHaveLength(lookupsSoFar);

    // Each lookup cost 1 credit; nothing else was charged.
    expect(creditsBefore - (await creditsRemaining(page))).toBe(lookups.length * PUBLICATIONS_COST);

    // Since the reload this session holds pages 3, 2 and 5: 25 publications, each once.
    const { download, text } = await downloadText(page, "export-csv");
    expect(download.suggestedFilename()).toMatch(/^publications-.*\.csv$/);
    expect(text.startsWith("\uFEFF")).toBe(true);
    const rows = parseCsv(text.slice(1));
    expect(rows[0]).toEqual(["title", "publication", "date", "description", "publication_url"]);
    expect(rows).toHaveLength(26);
    const exportedTitles = rows.slice(1).map((row) => row[0] ?? "");
    expect(new Set(exportedTitles.map((title, index) => `${title}|${rows[index + 1]?.[4]}`)).size).toBe(25);
    for (const title of page3Titles) expect(exportedTitles).toContain(title);
    for (const title of exportedTitles) expect(seenTitles.has(title)).toBe(true);
    expect(errors).toEqual([]);
  });

  test("a shared link to a page says what it looks up and its cost, and buys nothing until Run", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    const lookups = recordLookups(page, "get_user_publications");
    const creditsBefore = await creditsRemaining(page);
    await page.goto(`/publications?urn=${encodeURIComponent(BIG_PROFILE)}&page=2`);
    const notRun = page.getByTestId("publications-not-run");
    await expect(notRun).toContainText(`Page 2 of the publications of ${BIG_PROFILE} is not loaded in this session. Running it costs 1 credit.`);
    await expect(page.getByTestId("publications-not-run-run")).toHaveText("Run — 1 credit");
    await page.waitForLoadState("networkidle");
    expect(lookups, "opening a link buys nothing").toHaveLength(0);
    expect(await creditsRemaining(page)).toBe(creditsBefore);
    await expect(page.getByTestId("publication-item")).toHaveCount(0);

    await page.getByTestId("publications-not-run-run").click();
    await expectPublicationsPage(page, 2);
    expect(lookups.map((url) => url.searchParams.get("page"))).toEqual(["2"]);
    expect(creditsBefore - (await creditsRemaining(page))).toBe(PUBLICATIONS_COST);
    expect(errors).toEqual([]);
  });

  test("the pager marks skipped pages with an ellipsis, on a phone and on a desktop", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openLookupView(page, "publications");
    await run(page, "publications", BIG_PROFILE);
    await expectPublicationsPage(page, 1);
    /** What the pager shows, in order: page numbers and "…". */
    const shown = async () => {
      const items = await page.getByTestId("pager-buttons").locator("li").filter({ visible: true }).allTextContents();
      return items.map((text) => text.trim()).filter((text) => /^(\d+|…)$/.test(text));
    };
    await expect.poll(shown).toEqual(["1", "2", "…", "5"]);
    await page.getByTestId("pager-page-2").click();
    await expectPublicationsPage(page, 2);
    await expect.poll(shown).toEqual(["1", "2", "3", "…", "5"]);
    await page.getByTestId("pager-page-5").click();
    await expectPublicationsPage(page, 5);
    await page.getByTestId("pager-page-4").click();
    await expectPublicationsPage(page, 4);
    await expect.poll(shown).toEqual(["1", "…", "3", "4", "5"]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    // A desktop has room for every one of the 5 pages: no ellipsis.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(shown).toEqual(["1", "2", "3", "4", "5"]);
  });

  test("on a phone: the top bar shows the credits and the pager stays on one line", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await openLookupView(page, "publications");
    // The compact meter sits beside "Menu", visible without opening the menu.
    const compact = page.getByTestId("credit-meter-compact");
    await expect(compact).toBeVisible();
    await expect(compact).toHaveAttribute("data-credits-remaining", String(await creditsRemaining(page)));
    await expect(page.getByTestId("credit-meter")).toBeHidden();

    await run(page, "publications", BIG_PROFILE);
    await expect(page.getByTestId("publication-item").first()).toBeVisible();
    const prev = await page.getByTestId("pager-prev").boundingBox();
    const next = await page.getByTestId("pager-next").boundingBox();
    if (!prev || !next) throw new Error("pager buttons not laid out");
    expect(Math.abs(next.y - prev.y), "Next on the same line as Prev").toBeLessThan(2);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  test("an empty profile and a malformed URN each say what happened", async ({ page }) => {
    const lookups = await openLookupView(page, "publications");
    await expectRefused(page, "publications", "member:3000000001", lookups);

    await run(page, "publications", EMPTY_PROFILE);
    await expect(page.getByText("This profile has no publications.")).toBeVisible();
    await expect(page.getByTestId("publication-item")).toHaveCount(0);

    // A new, invalid input hides the old result under its red hint.
    await run(page, "publications", "member:3000000001");
    await expect(page.getByTestId("publications-input")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("This profile has no publications.")).toHaveCount(0);
  });
});

test.describe("screenshots", () => {
  for (const colorScheme of colorSchemes) {
    test(`followers and publications in ${colorScheme} mode`, async ({ page }) => {
      await page.emulateMedia({ colorScheme });
      await signInAsAdminWithConsoleKey(page);

      await page.goto("/followers");
      await runFollowers(page, SMALL_USER);
      await expect(page.getByTestId("follower-row").first()).toBeVisible();
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      // Let avatar images finish so the picture is stable.
      await page.waitForLoadState("networkidle");
      await page.screenshot({ path: `test-results/screenshots/followers-${colorScheme}.png`, fullPage: true });

      await page.goto(`/publications?urn=${encodeURIComponent(BIG_PROFILE)}&page=1`);
      await page.getByTestId("publications-not-run-run").click();
      await expect(page.getByTestId("publication-item")).toHaveCount(10);
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      await page.screenshot({ path: `test-results/screenshots/publications-${colorScheme}.png`, fullPage: true });
    });
  }
});
