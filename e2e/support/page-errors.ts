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
