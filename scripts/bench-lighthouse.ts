import type { BrowserContext } from "@playwright/test";
import { chromium } from "@playwright/test";
import lighthouse, { desktopConfig } from "lighthouse";
import { freePort } from "@/lib/cli/processes";
import { formatRow } from "./bench-lib";

/**
 * (c) of `npm run bench:ui`: Lighthouse's performance, accessibility and best-practices scores
 * of each page, with Lighthouse's desktop preset (a console is used on a desktop), in Debian's
 * Chromium started for it with a DevTools port. Signed-in pages get the session cookie. The
 * scores are printed against the target, not asserted.
 */
export const LIGHTHOUSE_TARGET = 95;
const CATEGORIES = ["performance", "accessibility", "best-practices"] as const;
type Category = (typeof CATEGORIES)[number];

export type PageScores = { path: string; scores: Record<Category, number | null>; failing: string[] };

type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

const cookieHeader = (storageState: StorageState, baseUrl: string): string => {
  const host = new URL(baseUrl).hostname;
  return storageState.cookies
    .filter((cookie) => cookie.domain.replace(/^\./, "") === host)
    .map((cookie) => `${cookie.name}=${cookie.value}`)
    .join("; ");
};

/** The audits below a perfect score that weigh in a category, to say what to fix. */
const failingAudits = (result: NonNullable<Awaited<ReturnType<typeof lighthouse>>>["lhr"]): string[] =>
  CATEGORIES.flatMap((category) =>
    (result.categories[category]?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0)
      .flatMap((ref) => {
        const audit = result.audits[ref.id];
        return audit && audit.score !== null && audit.score < 0.9 ? [`${category}: ${ref.id} (${audit.score})`] : [];
      }),
  );

export const measureLighthouse = async (
  baseUrl: string,
  pages: readonly string[],
  storageState: StorageState,
  chromiumArgs: readonly string[],
): Promise<PageScores[]> => {
  const port = await freePort();
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: [...chromiumArgs, `--remote-debugging-port=${port}`] });
  try {
    const cookie = cookieHeader(storageState, baseUrl);
    const results: PageScores[] = [];
    for (const pagePath of pages) {
      const runner = await lighthouse(
        `${baseUrl}${pagePath}`,
        { port, output: "json", logLevel: "error", onlyCategories: [...CATEGORIES], extraHeaders: cookie ? { Cookie: cookie } : undefined },
        desktopConfig,
      );
      if (!runner) throw new Error(`Lighthouse returned nothing for ${pagePath}`);
      const score = (category: Category) => {
        const value = runner.lhr.categories[category]?.score;
        return value === null || value === undefined ? null : Math.round(value * 100);
      };
      results.push({
        path: pagePath,
        scores: { performance: score("performance"), accessibility: score("accessibility"), "best-practices": score("best-practices") },
        failing: failingAudits(runner.lhr),
      });
    }
    return results;
  } finally {
    await browser.close();
  }
};

export const printLighthouse = (results: readonly PageScores[]): void => {
  const widths = [14, 13, 15, 16];
  console.log(formatRow(["page", "performance", "accessibility", "best-practices"], widths));
  for (const { path, scores } of results) {
    const cell = (value: number | null) => (value === null ? "—" : `${value}${value < LIGHTHOUSE_TARGET ? " (under)" : ""}`);
    console.log(formatRow([path, cell(scores.performance), cell(scores.accessibility), cell(scores["best-practices"])], widths));
  }
  const under = results.flatMap((result) => result.failing.map((audit) => `${result.path} ${audit}`));
  if (under.length > 0) console.log(`    audits scoring under 0.9:\n${under.map((line) => `      ${line}`).join("\n")}`);
  const all = results.flatMap((result) => Object.values(result.scores));
  console.log(`    target ≥ ${LIGHTHOUSE_TARGET} in each: ${all.every((value) => value !== null && value >= LIGHTHOUSE_TARGET) ? "ok" : "NOT MET"}`);
};
