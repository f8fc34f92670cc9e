import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signInAsAdminWithConsoleKey } from "./support/session";

/**
 * Accessibility (docs/console.md): every console and public page has no serious or critical
 * axe-core violation, in the light and the dark colour scheme. Lookup pages are checked with a
 * result on screen too, since most of their markup only exists then.
 */
const colorSchemes = ["light", "dark"] as const;
type Scheme = (typeof colorSchemes)[number];

type Check = {
  name: string;
  path: string;
  signedIn: boolean;
  /** Brings the page to the state worth checking, once it has loaded. */
  prepare?: (page: Page) => Promise<void>;
};

const lookup = (input: string, run: string, shown: string) => async (page: Page) => {
  await page.getByTestId(input).fill(input === "event-input" ? "1000000000000001" : input === "followers-input" ? "2000000002" : "urn:li:member:3000000001");
  await page.getByTestId(run).click();
  await expect(page.getByTestId(shown).first()).toBeVisible();
};

const CHECKS: Check[] = [
  { name: "home", path: "/", signedIn: false },
  { name: "sign-in", path: "/signin", signedIn: false },
  { name: "api-docs", path: "/api-docs", signedIn: false },
  { name: "events", path: "/events", signedIn: true },
  { name: "events with a card", path: "/events", signedIn: true, prepare: lookup("event-input", "event-run", "event-card") },
  { name: "followers", path: "/followers", signedIn: true },
  { name: "followers with a list", path: "/followers", signedIn: true, prepare: lookup("followers-input", "followers-run", "follower-row") },
  { name: "publications", path: "/publications", signedIn: true },
  { name: "publications with a page", path: "/publications", signedIn: true, prepare: lookup("publications-input", "publications-run", "publication-item") },
  { name: "keys", path: "/keys", signedIn: true },
  { name: "usage", path: "/usage", signedIn: true },
  { name: "members", path: "/workspace/members", signedIn: true },
  { name: "workspace audit log", path: "/workspace/audit", signedIn: true },
  { name: "invitation without its link", path: "/invitations/accept", signedIn: false },
  { name: "account", path: "/account", signedIn: true },
  { name: "provider key", path: "/account/provider-key", signedIn: true },
  { name: "admin users", path: "/admin/users", signedIn: true },
  { name: "admin credits", path: "/admin/credits", signedIn: true },
  { name: "admin workspaces", path: "/admin/workspaces", signedIn: true },
  { name: "admin upstream settings", path: "/admin/settings", signedIn: true },
  { name: "admin import", path: "/admin/upload", signedIn: true },
  { name: "admin audit log", path: "/admin/audit", signedIn: true },
  { name: "admin privacy", path: "/admin/privacy", signedIn: true },
  { name: "not found", path: "/no-such-page", signedIn: true },
];

type Violation = { id: string; impact: string | null | undefined; help: string; nodes: string[] };

const axeViolations = async (page: Page): Promise<Violation[]> => {
  // Experimental rules too: label-content-name-mismatch (a visible label that is not part of the
  // accessible name, which breaks voice control) is one of them.
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"])
    .analyze();
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    nodes: violation.nodes.map((node) => `${node.target.join(" ")} — ${node.failureSummary ?? ""}`.slice(0, 300)),
  }));
};

/**
 * The page a check is made on. Both schemes of one check share a page load (and the lookup a
 * prepared check makes): the dark run switches the scheme of the page the light run checked, as a
 * reader's system setting does. Signed-in checks share one sign-in per worker.
 */
type Loaded = { page: Page; check: string | null };

const openChecked = async (loaded: Loaded, check: Check) => {
  const { page } = loaded;
  loaded.check = null;
  await page.goto(check.path);
  await page.waitForLoadState("networkidle");
  await check.prepare?.(page);
  // Let transitions and late data settle: contrast is measured on what is painted.
  await page.waitForLoadState("networkidle");
  loaded.check = check.name;
};

const inScheme = async (loaded: Loaded, check: Check, scheme: Scheme) => {
  await loaded.page.emulateMedia({ colorScheme: scheme });
  // A worker that restarted after a failure, or another check in between, loads the page afresh.
  if (loaded.check !== check.name) await openChecked(loaded, check);
  // A scheme switched on a loaded page animates its colours: measure once every transition ended.
  await loaded.page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== "running"));
};

test.describe("axe-core", () => {
  // One analysis of /api-docs (every operation's form and snippets) takes seconds, more on a busy machine.
  test.setTimeout(120_000);
  let signedOut: Loaded;
  let signedIn: Loaded;

  test.beforeAll(async ({ browser }) => {
    signedOut = { page: await (await browser.newContext()).newPage(), check: null };
    signedIn = { page: await (await browser.newContext()).newPage(), check: null };
    await signInAsAdminWithConsoleKey(signedIn.page);
  });

  test.afterAll(async () => {
    await signedOut.page.context().close();
    await signedIn.page.context().close();
  });

  for (const check of CHECKS) {
    for (const scheme of colorSchemes) {
      test(`${check.name} (${check.path}) in ${scheme} mode: no serious or critical violation`, async ({}, testInfo) => {
        const loaded = check.signedIn ? signedIn : signedOut;
        await inScheme(loaded, check, scheme);
        const violations = await axeViolations(loaded.page);
        const minor = violations.filter((violation) => violation.impact !== "serious" && violation.impact !== "critical");
        if (minor.length > 0) {
          testInfo.annotations.push({ type: "axe minor", description: JSON.stringify(minor) });
          console.log(`[axe] ${check.name} ${scheme}: minor ${JSON.stringify(minor)}`);
        }
        expect(violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")).toEqual([]);
      });
    }
  }
});
