import { expect, test, type Locator, type Page, type Request } from "@playwright/test";
import { consoleKeyCredits, postFromPage, signInAsAdminWithConsoleKey } from "./support/session";
import { collectErrors } from "./support/page-errors";

/**
 * The API page: the try-it form of each operation shows its cost before sending, sends with
 * the console key (through the console API; the browser never holds a token) or with a pasted
 * key (straight to /v1), shows status, headers and body, and offers curl / fetch / Python
 * snippets of exactly that call with a placeholder key. Screenshots in light and dark mode.
 */
const OP = "get_user_publications";
const PATH = "/v1/jobsite/get_user_publications";
const URN = "urn:li:member:3000000001";
const ENCODED_QUERY = `urn=${encodeURIComponent(URN)}&page=1`;
const colorSchemes = ["light", "dark"] as const;

/** Requests the page sends to /v1 or the console lookup API, with their headers. */
const recordCalls = (page: Page): Request[] => {
  const calls: Request[] = [];
  page.on("request", (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith("/v1/") || pathname.startsWith("/api/console/lookup/")) calls.push(request);
  });
  return calls;
};

const tryIt = (page: Page): Locator => page.getByTestId(`try-${OP}`);

const openApiDocs = async (page: Page) => {
  await page.goto(`/api-docs#${OP}`);
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
  await expect(tryIt(page)).toBeVisible();
};

const creditsRemaining = async (page: Page): Promise<number> => {
  const key = await consoleKeyCredits(page);
  if (!key) throw new Error("no console key");
  return key.creditsRemaining;
};

/** A real key of the admin (not the console key), issued through the console API; its token is shown once. */
const issueKey = async (page: Page): Promise<string> => {
  const created = await postFromPage(page, "/api/keys", { name: `api-docs paste ${Date.now()}`, credits: 100, qpsLimit: 100 });
  expect(created.status, created.text).toBe(201);
  return (JSON.parse(created.text) as { token: string }).token;
};

/** Nothing a page script could read keeps the key. */
const expectKeyNotStored = async (page: Page, key: string) => {
  const stored = await page.evaluate(() => {
    const all: string[] = [document.cookie];
    for (const storage of [window.localStorage, window.sessionStorage]) {
      for (let index = 0; index < storage.length; index += 1) {
        const name = storage.key(index) ?? "";
        all.push(name, storage.getItem(name) ?? "");
      }
    }
    return all.join("\n");
  });
  expect(stored).not.toContain(key);
};

test.describe("API page try-it", () => {
  test("sends publications with the console key: 200, 1 credit charged, no token in the browser", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    const calls = recordCalls(page);
    await openApiDocs(page);

    const form = tryIt(page);
    await expect(form.getByTestId(`try-${OP}-cost`)).toHaveText(/This call costs 1 credit — charged only on a 200/);
    await expect(form.getByTestId(`try-${OP}-param-urn`)).toHaveValue(URN);
    await expect(form.getByTestId(`try-${OP}-param-page`)).toHaveValue("1");
    const before = await creditsRemaining(page);

    await expect(form.getByTestId(`try-${OP}-send-console`)).toBeEnabled();
    await form.getByTestId(`try-${OP}-send-console`).click();

    await expect(form.getByTestId(`try-${OP}-status`)).toHaveText("200 OK");
    const headers = form.getByTestId(`try-${OP}-headers`);
    await expect(headers).toContainText(/X-Credits-Charged\s*1(?!\d)/);
    await expect(headers).toContainText(/X-Credits-Cost\s*1(?!\d)/);
    await expect(headers).toContainText(/X-Request-Id\s*[0-9a-f-]{36}/);
    await expect(headers).toContainText(new RegExp(`X-Credits-Remaining\\s*${before - 1}(?!\\d)`));
    await expect(headers).toContainText("RateLimit-Limit");
    const body = form.getByTestId(`try-${OP}-body`);
    await expect(body).toContainText('"code": 0');
    await expect(body).toContainText('"message": "success"');
    await expect(body).toContainText('"total": 45');
    expect(await creditsRemaining(page)).toBe(before - 1);

    // One call, to the console API, carrying the session cookie and no Authorization header.
    expect(calls.map((call) => new URL(call.url()).pathname + new URL(call.url()).search)).toEqual([
      `/api/console/lookup/${OP}?${ENCODED_QUERY}`,
    ]);
    const [consoleCall] = calls;
    expect(await consoleCall?.headerValue("authorization")).toBeNull();
    expect(errors).toEqual([]);
  });

  test("a pasted bad key goes straight to /v1 and shows the 401; a pasted good key answers 200", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    const goodKey = await issueKey(page);
    const calls = recordCalls(page);
    await openApiDocs(page);
    const form = tryIt(page);
    const tokenInput = form.getByTestId(`try-${OP}-token`);
    await expect(tokenInput).toHaveAttribute("type", "password");

    // Without a key the form asks for one instead of sending.
    await form.getByTestId(`try-${OP}-send-token`).click();
    await expect(form.getByText("Paste an API key first.")).toBeVisible();
    await expect(tokenInput).toBeFocused();
    expect(calls).toHaveLength(0);

    const badKey = "not-a-real-key-0123456789";
    await tokenInput.fill(badKey);
    await form.getByTestId(`try-${OP}-send-token`).click();
    await expect(form.getByTestId(`try-${OP}-status`)).toHaveText("401 Unauthorized");
    await expect(form.getByTestId(`try-${OP}-body`)).toContainText(/"message": "apiKey is (null|invalid)"/);
    await expect(form.getByTestId(`try-${OP}-headers`)).toContainText("X-Request-Id");

    const [badCall] = calls;
    if (!badCall) throw new Error("no request was sent");
    expect(new URL(badCall.url()).pathname + new URL(badCall.url()).search).toBe(`${PATH}?${ENCODED_QUERY}`);
    const sent = await badCall.allHeaders();
    expect(sent.authorization).toBe(`Bearer ${badKey}`);
    // Sent like an outside client: the session cookie stays home.
    expect(sent.cookie).toBeUndefined();

    // Enter in the key field sends with the pasted key (not the console key of the signed-in admin).
    await tokenInput.fill(goodKey);
    await tokenInput.press("Enter");
    await expect(form.getByTestId(`try-${OP}-status`)).toHaveText("200 OK");
    await expect(form.getByTestId(`try-${OP}-headers`)).toContainText(/X-Credits-Charged\s*1(?!\d)/);
    await expect(form.getByTestId(`try-${OP}-headers`)).toContainText(/X-Credits-Remaining\s*99(?!\d)/);
    expect(calls).toHaveLength(2);
    expect(await calls[1]?.headerValue("authorization")).toBe(`Bearer ${goodKey}`);
    expect(new URL(calls[1]?.url() ?? "").pathname).toBe(PATH);

    // The key lives in the form only: not in storage, cookies, the URL or any snippet.
    for (const key of [badKey, goodKey]) await expectKeyNotStored(page, key);
    expect(page.url()).not.toContain(goodKey);
    for (const language of ["curl", "fetch", "python", "sdk", "python-client"]) {
      expect(await form.getByTestId(`snippet-${language}-${OP}`).textContent()).not.toContain(goodKey);
    }
    expect(errors).toEqual([]);
  });

  test("snippets describe exactly the form's call with a placeholder key and follow the form", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await openApiDocs(page);
    const form = tryIt(page);
    const origin = new URL(page.url()).origin;

    const curl = form.getByTestId(`snippet-curl-${OP}`);
    await expect(curl).toBeVisible();
    await expect(curl).toContainText(`curl -sS '${origin}${PATH}?${ENCODED_QUERY}'`);
    await expect(curl).toContainText('-H "Authorization: Bearer $SOCIAL_LOOKUP_API_KEY"');
    expect(await curl.textContent()).not.toMatch(/Bearer (?!\$SOCIAL_LOOKUP_API_KEY)\S/);

    await form.getByTestId(`try-${OP}-param-page`).fill("3");
    await form.getByTestId(`try-${OP}-param-urn`).fill("urn:li:member:a b&c=d");
    await expect(curl).toContainText(`${PATH}?urn=urn%3Ali%3Amember%3Aa+b%26c%3Dd&page=3'`);

    // Tabs by keyboard: → moves to JavaScript, → again to Python, End to the Python client, ← back to the SDK.
    await form.getByRole("tab", { name: "curl" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(form.getByRole("tab", { name: "JavaScript" })).toHaveAttribute("aria-selected", "true");
    await expect(form.getByRole("tab", { name: "JavaScript" })).toBeFocused();
    const fetchSnippet = form.getByTestId(`snippet-fetch-${OP}`);
    await expect(fetchSnippet).toBeVisible();
    await expect(curl).toBeHidden();
    await expect(fetchSnippet).toContainText(`url.searchParams.append("urn", "urn:li:member:a b&c=d");`);
    await expect(fetchSnippet).toContainText("process.env.SOCIAL_LOOKUP_API_KEY");
    await page.keyboard.press("ArrowRight");
    const python = form.getByTestId(`snippet-python-${OP}`);
    await expect(python).toBeVisible();
    await expect(python).toContainText(`"urn": "urn:li:member:a b&c=d",`);
    await expect(python).toContainText(`"page": "3",`);
    await expect(python).toContainText("os.environ['SOCIAL_LOOKUP_API_KEY']");
    await page.keyboard.press("End");
    await expect(form.getByRole("tab", { name: "Python client" })).toHaveAttribute("aria-selected", "true");
    const pythonClient = form.getByTestId(`snippet-python-client-${OP}`);
    await expect(pythonClient).toBeVisible();
    await expect(pythonClient).toContainText('answer = client.publications(urn="urn:li:member:a b&c=d", page=3)');
    await expect(pythonClient).toContainText('os.environ["SOCIAL_LOOKUP_API_KEY"]');
    await page.keyboard.press("ArrowLeft");
    const sdk = form.getByTestId(`snippet-sdk-${OP}`);
    await expect(sdk).toBeVisible();
    await expect(sdk).toContainText('await client.publications({ urn: "urn:li:member:a b&c=d", page: 3 });');
    await expect(sdk).toContainText("apiKey: process.env.SOCIAL_LOOKUP_API_KEY");
    expect(errors).toEqual([]);
  });

  test("signed in, the reference sits in the console shell with one header and one Sign out", async ({ page }) => {
    await signInAsAdminWithConsoleKey(page);
    for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport);
      await page.goto("/api-docs");
      await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
      await expect(page.getByRole("banner")).toHaveCount(1);
      if (viewport.width < 1024) await page.getByRole("button", { name: "Menu" }).click();
      await expect(page.getByRole("region", { name: "Signed-in account" })).toBeVisible();
      // The account block of the shell is the only one: the site header adds no second Sign out.
      await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(1);
      await expect(page.getByRole("banner").getByRole("button", { name: "Sign out" })).toHaveCount(0);
      await expect(page.getByRole("banner").getByRole("link", { name: "Console" })).toHaveCount(0);
    }
  });

  test("signed out: every operation has a form and its cost; the console button asks to sign in", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await page.goto("/api-docs");
    // Signed out, the reference stands alone: no console navigation, no meter.
    await expect(page.getByRole("navigation", { name: "Console" })).toHaveCount(0);
    await expect(page.getByTestId("credit-meter")).toHaveCount(0);
    for (const [operation, cost] of [
      ["event_details", "4 credits"],
      ["event_details_id", "4 credits"],
      ["followers", "2 credits"],
      [OP, "1 credit"],
    ] as const) {
      const form = page.getByTestId(`try-${operation}`);
      await expect(form.getByTestId(`try-${operation}-cost`)).toContainText(`This call costs ${cost} — charged only on a 200`);
      await expect(form.getByTestId(`snippet-curl-${operation}`)).toContainText("$SOCIAL_LOOKUP_API_KEY");
      await expect(form.getByTestId(`try-${operation}-send-console`)).toBeDisabled();
      await expect(form.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", `/signin?callbackUrl=${encodeURIComponent(`/api-docs#${operation}`)}`);
    }
    // followers starts in first-page mode: node_id and cursor stay empty and out of the call.
    const followers = page.getByTestId("try-followers");
    await expect(followers.getByTestId("try-followers-param-userid")).toHaveValue("2000000002");
    await expect(followers.getByTestId("try-followers-param-cursor")).toHaveValue("");
    await expect(followers.getByTestId("snippet-curl-followers")).toContainText("/v1/pinsite/followers?userid=2000000002'");
    await page.waitForLoadState("networkidle");
    expect(errors).toEqual([]);
  });

  test("Agents: the MCP server URL, every tool with its cost, and client configurations with a placeholder key", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await page.goto("/api-docs#agents");
    const agents = page.getByTestId("agents-section");
    await expect(agents.getByRole("heading", { name: "Agents (MCP)" })).toBeVisible();
    const origin = new URL(page.url()).origin;
    await expect(agents.getByTestId("mcp-url")).toHaveText(`${origin}/mcp`);
    for (const [tool, cost] of [["event_details", "4 cr"], ["followers", "2 cr"], [OP, "1 cr"], ["account_balance", "free"]] as const) {
      await expect(agents.getByRole("listitem").filter({ hasText: tool }).first()).toContainText(cost);
    }
    const configs = agents.locator("pre");
    await expect(configs).toHaveCount(3);
    for (const config of await configs.allTextContents()) {
      expect(config).toContain("<YOUR_API_KEY>");
      expect(config).toContain(`${origin}/mcp`);
      expect(config).not.toMatch(/eyJ[\w-]+\.[\w-]+/);
    }
    await page.waitForLoadState("networkidle");
    expect(errors).toEqual([]);
  });

  test("followers: Enter sends with the console key; a page's node_id and cursor fill the form for the next page", async ({ page }) => {
    const errors = collectErrors(page, { expectFailedRequests: true });
    await signInAsAdminWithConsoleKey(page);
    // Signed in, "API" in the console's navigation keeps the console around the reference.
    await page.goto("/events");
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "API" }).click();
    await expect(page).toHaveURL(/\/api-docs$/);
    await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "API" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByTestId("credit-meter")).toHaveAttribute("data-credits-remaining", /^\d+$/);
    await expect(page.getByRole("region", { name: "Signed-in account" })).toBeVisible();
    await page.goto("/api-docs#followers");
    const form = page.getByTestId("try-followers");
    await expect(form.getByTestId("try-followers-send-console")).toBeEnabled();
    // Enter in a parameter field sends with the console key when signed in.
    const calls = recordCalls(page);
    const meterBefore = Number(await page.getByTestId("credit-meter").getAttribute("data-credits-remaining"));
    await form.getByTestId("try-followers-param-userid").press("Enter");
    await expect(form.getByTestId("try-followers-status")).toHaveText("200 OK");
    // The shell's meter follows the call made with the console key.
    await expect(page.getByTestId("credit-meter")).toHaveAttribute("data-credits-remaining", String(meterBefore - 2));
    await expect(form.getByTestId("try-followers-headers")).toContainText(/X-Credits-Charged\s*2(?!\d)/);
    expect(calls.map((call) => new URL(call.url()).pathname)).toEqual(["/api/console/lookup/followers"]);
    await form.getByRole("button", { name: "Fill in node_id and cursor for the next page" }).click();
    await expect(form.getByTestId("try-followers-param-userid")).toHaveValue("");
    await expect(form.getByTestId("try-followers-param-node_id")).not.toHaveValue("");
    await expect(form.getByTestId("snippet-curl-followers")).toContainText(/followers\?node_id=[^&']+&cursor=[^&']+'/);
    await form.getByTestId("try-followers-send-console").click();
    await expect(form.getByTestId("try-followers-body")).toContainText('"has_next_page": false');
    await expect(form.getByTestId("try-followers-status")).toHaveText("200 OK");
    expect(errors).toEqual([]);
  });

  test("fits a 375 px wide screen without sideways scrolling", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await openApiDocs(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  for (const colorScheme of colorSchemes) {
    test(`saves a screenshot with an answer in ${colorScheme} mode`, async ({ page }) => {
      const errors = collectErrors(page, { expectFailedRequests: true });
      await page.emulateMedia({ colorScheme });
      await signInAsAdminWithConsoleKey(page);
      await openApiDocs(page);
      const form = tryIt(page);
      await expect(form.getByTestId(`try-${OP}-send-console`)).toBeEnabled();
      await form.getByTestId(`try-${OP}-send-console`).click();
      await expect(form.getByTestId(`try-${OP}-status`)).toHaveText("200 OK");
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      await page.screenshot({ path: `test-results/screenshots/api-docs-${colorScheme}.png`, fullPage: true });
      expect(errors).toEqual([]);
    });
  }
});
