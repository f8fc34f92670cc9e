import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { adminCredentials, createAnalyst, inOwnContext, signIn } from "./support/session";
import { collectErrors } from "./support/page-errors";

/**
 * The key issuance page (/keys) in a real browser, against the production server: a token is
 * shown once, works on /v1 at once, stops working the moment it is revoked in the UI, and a roll
 * keeps the previous token alive exactly for the chosen grace period.
 */
const FOLLOWERS_PATH = "/v1/pinsite/followers";
const FOLLOWERS_USER_ID = "2000000002";
const FOLLOWERS_COST = 2;
const INVALID_KEY = "apiKey is invalid";

const colorSchemes = ["light", "dark"] as const;

type KeyView = { id: string; name: string; creditsRemaining: number; status: string };
type IssuedKey = { key: KeyView; token: string };

const uniqueName = (label: string) => `${label} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

const openKeysPage = async (page: Page) => {
  await signIn(page, adminCredentials());
  await page.goto("/keys");
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(page.getByTestId("new-key-form")).toBeVisible();
};

/** The token panel's token, read from its `code` element. */
const shownToken = async (page: Page): Promise<string> => {
  const code = page.getByTestId("new-key-token").locator("code");
  await expect(code).toBeVisible();
  const token = (await code.textContent())?.trim() ?? "";
  expect(token, "a JWT-shaped token").toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  return token;
};

/** Fills and submits the "Create a key" form; returns the new key and the token the page shows. */
const createKeyInUi = async (page: Page, input: { name: string; credits: number; qpsLimit: number }): Promise<IssuedKey> => {
  await page.getByTestId("new-key-name").fill(input.name);
  await page.getByTestId("new-key-credits").fill(String(input.credits));
  await page.getByTestId("new-key-qps").fill(String(input.qpsLimit));
  const created = page.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/api/keys");
  await page.getByTestId("create-key").click();
  const response = await created;
  expect(response.status(), "POST /api/keys").toBe(201);
  const issued = (await response.json()) as IssuedKey;
  await expect(page.getByTestId("token-warning")).toBeVisible();
  await expect(page.getByTestId("token-warning")).toContainText("you will not see it again");
  expect(await shownToken(page), "the page shows the token the server issued").toBe(issued.token);
  await expect(page.getByTestId(`key-row-${issued.key.id}`)).toContainText(input.name);
  return issued;
};

/** "Done": the token leaves the DOM for good. */
const dismissToken = async (page: Page, token: string) => {
  await page.getByTestId("token-done").click();
  await expect(page.getByTestId("new-key-token")).toHaveCount(0);
  await expect(page.getByTestId("token-warning")).toHaveCount(0);
  expect(await page.content(), "the DOM after Done").not.toContain(token);
};

type V1Answer = { status: number; remaining: string | null; charged: string | null; body: unknown };

const followers = async (request: APIRequestContext, token: string): Promise<V1Answer> => {
  const response = await request.get(FOLLOWERS_PATH, {
    params: { userid: FOLLOWERS_USER_ID },
    headers: { Authorization: `Bearer ${token}` },
  });
  const headers = response.headers();
  return {
    status: response.status(),
    remaining: headers["x-credits-remaining"] ?? null,
    charged: headers["x-credits-charged"] ?? null,
    body: await response.json(),
  };
};

const expectInvalidKey = (answer: V1Answer, label: string) => {
  expect({ status: answer.status, body: answer.body }, label).toMatchObject({
    status: 401,
    body: { code: 401, message: INVALID_KEY, data: null },
  });
};

const rollInUi = async (page: Page, keyId: string, grace: "none" | "1h" | "24h"): Promise<string> => {
  await page.getByTestId(`roll-${keyId}`).click();
  const dialog = page.getByTestId("roll-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId(`grace-${grace}`).check();
  await dialog.getByTestId("confirm-roll").click();
  await expect(page.getByTestId("roll-dialog")).toBeHidden();
  await expect(page.getByTestId("token-warning")).toBeVisible();
  return shownToken(page);
};

test.describe("/keys: issuing and using an API key", () => {
  test("shows a new token once, and it spends credits on /v1 until it is revoked in the UI", async ({ page, request }) => {
    const errors = collectErrors(page);
    await openKeysPage(page);

    const name = uniqueName("e2e issued");
    const { key, token } = await createKeyInUi(page, { name, credits: 100, qpsLimit: 10 });

    await dismissToken(page, token);
    await page.reload();
    await expect(page.getByTestId(`key-row-${key.id}`)).toBeVisible();
    await expect(page.getByTestId("new-key-token")).toHaveCount(0);
    expect(await page.content(), "the page after a reload").not.toContain(token);

    const first = await followers(request, token);
    expect(first.status, "a follower page with the new token").toBe(200);
    expect(first.charged).toBe(String(FOLLOWERS_COST));
    expect(first.remaining, "credits down by the cost of a follower page").toBe(String(100 - FOLLOWERS_COST));

    // Coming back to the page (it regains focus) shows the use without a reload.
    const row = page.getByTestId(`key-row-${key.id}`);
    await expect(row).toContainText(/Last used\s*Never/);
    await page.evaluate(() => window.dispatchEvent(new Event("visibilitychange")));
    await expect(page.getByTestId(`key-credits-${key.id}`)).toContainText(`${100 - FOLLOWERS_COST} / 100`);
    await expect(row).not.toContainText(/Last used\s*Never/);
    // "Credits left" and "Last used" stay on one line each.
    for (const label of [row.getByText("Credits left", { exact: true }), row.getByText("Last used", { exact: true })]) {
      await expect(label).toHaveCSS("white-space", "nowrap");
    }

    await page.getByTestId(`revoke-${key.id}`).click();
    const dialog = page.getByTestId("revoke-dialog");
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(name);
    await dialog.getByTestId("confirm-revoke").click();
    await expect(page.getByTestId("revoke-dialog")).toBeHidden();
    await expect(page.getByTestId(`key-status-${key.id}`)).toHaveText("Revoked");
    await expect(page.getByTestId(`revoke-${key.id}`)).toHaveCount(0);

    expectInvalidKey(await followers(request, token), "the next /v1 call after the revocation");
    expect(errors).toEqual([]);
  });

  test("cancelling the revoke dialog leaves the key working", async ({ page, request }) => {
    await openKeysPage(page);
    const { key, token } = await createKeyInUi(page, { name: uniqueName("e2e kept"), credits: 10, qpsLimit: 5 });
    await dismissToken(page, token);

    await page.getByTestId(`revoke-${key.id}`).click();
    await expect(page.getByTestId("revoke-dialog")).toBeVisible();
    await page.getByTestId("cancel-revoke").click();
    await expect(page.getByTestId("revoke-dialog")).toBeHidden();
    await expect(page.getByTestId(`key-status-${key.id}`)).toHaveText("Active");

    expect((await followers(request, token)).status).toBe(200);
  });

  test("a roll with a 1 h grace keeps both tokens working; a roll with none leaves only the newest", async ({ page, request }) => {
    const errors = collectErrors(page);
    await openKeysPage(page);

    const { key, token: original } = await createKeyInUi(page, { name: uniqueName("e2e rolled"), credits: 100, qpsLimit: 10 });
    await dismissToken(page, original);

    const afterGrace = await rollInUi(page, key.id, "1h");
    expect(afterGrace).not.toBe(original);
    await expect(page.getByTestId("new-key-token-panel")).toContainText("keeps working for 1 hour");
    await dismissToken(page, afterGrace);

    expect((await followers(request, original)).status, "the previous token during its 1 h grace").toBe(200);
    expect((await followers(request, afterGrace)).status, "the new token").toBe(200);

    const newest = await rollInUi(page, key.id, "none");
    expect([original, afterGrace]).not.toContain(newest);
    await expect(page.getByTestId("new-key-token-panel")).toContainText("no longer works");
    await dismissToken(page, newest);

    const last = await followers(request, newest);
    expect(last.status, "the newest token").toBe(200);
    // Three follower pages so far (one per 200): rolling kept the key's credits.
    expect(last.remaining).toBe(String(100 - 3 * FOLLOWERS_COST));
    expectInvalidKey(await followers(request, afterGrace), "the token replaced without grace");
    expectInvalidKey(await followers(request, original), "the token of the first roll, whose grace the second roll ended");
    expect(errors).toEqual([]);
  });

  for (const colorScheme of colorSchemes) {
    test(`saves a screenshot of /keys with a fresh token in ${colorScheme} mode`, async ({ page }) => {
      const errors = collectErrors(page);
      await page.emulateMedia({ colorScheme });
      await openKeysPage(page);
      await createKeyInUi(page, { name: uniqueName(`Screenshot ${colorScheme}`), credits: 500, qpsLimit: 5 });
      await page.evaluate(async () => {
        await document.fonts.ready;
      });
      await page.screenshot({ path: `test-results/screenshots/keys-${colorScheme}.png`, fullPage: true });
      expect(errors).toEqual([]);
    });
  }
});

test.describe("/keys: a key limited to some operations and addresses", () => {
  const PUBLICATIONS_PATH = "/v1/jobsite/get_user_publications";
  const lookup = async (request: APIRequestContext, token: string, path: string, params: Record<string, string>) => {
    const response = await request.get(path, { params, headers: { Authorization: `Bearer ${token}` } });
    return { status: response.status(), charged: response.headers()["x-credits-charged"] ?? null, body: await response.json() };
  };

  test("creates a scoped key with an allowlist, a refill and thresholds, then edits its allowlist", async ({ page, request }) => {
    // The refused edit is a 400 the browser logs as a failed resource.
    const errors = collectErrors(page, { expectFailedRequests: true });
    await openKeysPage(page);
    const name = uniqueName("e2e scoped");
    await page.getByTestId("new-key-limits").locator("summary").click();
    await page.getByTestId("new-key-all-operations").uncheck();
    for (const id of ["event_details", "event_details_id", "get_user_publications"]) await page.getByTestId(`new-key-operation-${id}`).uncheck();
    await expect(page.getByTestId("new-key-operation-followers")).toBeChecked();
    // The browser's requests come from 127.0.0.1 (the server trusts no proxy here).
    await page.getByTestId("new-key-addresses").fill("127.0.0.0/8\n::1");
    await page.getByTestId("new-key-refill-interval").selectOption("monthly");
    await page.getByTestId("new-key-refill-credits").fill("100");
    await page.getByTestId("new-key-refill-day").fill("31");
    await page.getByTestId("new-key-thresholds").fill("50, 20%");
    const { key, token } = await createKeyInUi(page, { name, credits: 100, qpsLimit: 10 });
    await dismissToken(page, token);

    const row = page.getByTestId(`key-row-${key.id}`);
    await expect(row).toContainText("followers");
    await expect(row).toContainText("127.0.0.0/8, ::1");
    await expect(row).toContainText("Top up to 100 monthly on day 31");
    await expect(row).toContainText("50, 20");

    expect((await followers(request, token)).status, "the allowed operation from an allowed address").toBe(200);
    expect(await lookup(request, token, PUBLICATIONS_PATH, { urn: "urn:li:member:3000000003" })).toMatchObject({
      status: 403,
      charged: "0",
      body: { code: 403, message: "apiKey is not allowed to call this operation", data: null },
    });

    // A range with host bits set is refused with the sentence that says what to write instead.
    await page.getByTestId(`limits-${key.id}`).click();
    const dialog = page.getByTestId("limits-dialog");
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("limits-addresses")).toHaveValue("127.0.0.0/8\n::1");
    await dialog.getByTestId("limits-addresses").fill("10.0.0.1/24");
    await dialog.getByTestId("confirm-limits").click();
    await expect(dialog.getByTestId("dialog-error")).toContainText("did you mean 10.0.0.0/24?");
    expect((await followers(request, token)).status, "nothing changed after the refused edit").toBe(200);

    await dialog.getByTestId("limits-addresses").fill("192.0.2.0/24");
    await dialog.getByTestId("confirm-limits").click();
    await expect(page.getByTestId("limits-dialog")).toBeHidden();
    await expect(row).toContainText("192.0.2.0/24");
    const refused = await followers(request, token);
    expect({ status: refused.status, charged: refused.charged, body: refused.body }).toMatchObject({
      status: 403,
      charged: "0",
      body: { code: 403, message: "apiKey is not allowed from this address" },
    });
    expect(errors).toEqual([]);
  });
});

test.describe("/keys: an analyst's refill is paid from their allowance", () => {
  test("a refill the allowance cannot hold is refused with the sentence that says so, and no key is made", async ({ page, browser }) => {
    await signIn(page, adminCredentials());
    const analyst = await createAnalyst(page, { creditAllowance: 100 });
    await inOwnContext(browser, async (own) => {
      // The refused creation is a 422 the browser logs as a failed resource.
      const errors = collectErrors(own, { expectFailedRequests: true });
      await signIn(own, analyst.email, analyst.password);
      await own.goto("/keys");
      await expect(own.getByTestId("new-key-form")).toBeVisible();
      await own.getByTestId("new-key-name").fill(uniqueName("e2e minting"));
      await own.getByTestId("new-key-credits").fill("0");
      await own.getByTestId("new-key-limits").locator("summary").click();
      await own.getByTestId("new-key-refill-interval").selectOption("daily");
      await own.getByTestId("new-key-refill-credits").fill("1000000000");
      await expect(own.getByTestId("new-key-form")).toContainText("paid from their credit allowance");
      const refused = own.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/api/keys");
      await own.getByTestId("create-key").click();
      expect((await refused).status()).toBe(422);
      await expect(own.getByTestId("create-key-error")).toHaveText(
        "Not enough credit allowance for a refill of 1,000,000,000 credits a day: your allowance holds 100. Ask an administrator for more.",
      );
      await expect(own.getByTestId("keys-empty")).toBeVisible();
      // What the allowance holds is accepted, and the key says how it is refilled.
      await own.getByTestId("new-key-refill-credits").fill("100");
      const { key } = await createKeyInUi(own, { name: uniqueName("e2e paid refill"), credits: 0, qpsLimit: 5 });
      await expect(own.getByTestId(`key-row-${key.id}`)).toContainText("Top up to 100 daily; next");
      expect(errors).toEqual([]);
    });
  });
});
