import type { Page } from "@playwright/test";

/**
 * Console errors and uncaught exceptions of a page, collected from the moment of the call.
 * With `expectFailedRequests`, the browser's "Failed to load resource" lines are left out: a
 * page that is made to fail a lookup (401, 402, 404, …) logs one, and that is not a page error.
 */
export const collectErrors = (page: Page, { expectFailedRequests = false } = {}): string[] => {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    if (expectFailedRequests && message.text().startsWith("Failed to load resource")) return;
    errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  return errors;
};

const VIOLATION_PREFIX = "securitypolicyviolation:";

/**
 * Every Content-Security-Policy violation of the page's documents from the moment of the call,
 * as "<directive> <blocked URI or 'inline'> at <document>". A listener is installed in each new
 * document before its own scripts (an init script runs outside the page's policy) and reports on
 * the console. Chromium also logs each refusal as a console error, so `collectErrors` fails on
 * them too; this names the directive and the blocked source.
 */
export const collectPolicyViolations = async (page: Page): Promise<string[]> => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (message.text().startsWith(VIOLATION_PREFIX)) violations.push(message.text().slice(VIOLATION_PREFIX.length).trim());
  });
  await page.addInitScript((prefix: string) => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.warn(`${prefix} ${event.effectiveDirective} ${event.blockedURI || "inline"} at ${event.documentURI}`);
    });
  }, VIOLATION_PREFIX);
  return violations;
};
