import type { ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";
import { chromium, type Browser, type BrowserContext } from "@playwright/test";
import { z } from "zod";
import { ensureBuild } from "@/lib/cli/build";
import { CHROMIUM_ARGS } from "@/lib/cli/chromium";
import { freePort } from "@/lib/cli/processes";
import { formatRow, killGroupNow, machineSummary, releaseOnExit, sleep, spawnLogged, stopGroup, tail, waitForOtherBuilds } from "./bench-lib";
import { LIGHTHOUSE_TARGET, measureLighthouse, printLighthouse } from "./bench-lighthouse";

/**
 * `npm run bench:ui`: the console's front-end budget (docs/performance.md), printed, not asserted.
 *  (a) First Load JS of each page: the JS files the production build's manifests say a first
 *      visit loads, gzip-summed (node:zlib, default level), against the framework's baseline —
 *      what /_not-found loads (the runtime and the root layout's shared chunks). Target ≤ 1.3×.
 *  (b) LCP and CLS of /events with an event card shown, in Chromium against the production
 *      server on a throw-away database; median of 3 runs. Targets: LCP ≤ 1.5 s, CLS ≤ 0.05.
 *  (c) Lighthouse's performance, accessibility and best-practices scores of each page (desktop
 *      preset, signed in where the page needs it). Target ≥ 95 each (scripts/bench-lighthouse.ts).
 * `npm run bench:ui -- --only=bundle` runs (a) alone: no server, no browser, a second or two.
 */
const root = process.cwd();
const nextDir = path.join(root, ".next");
const tsxCli = path.join(root, "node_modules", "tsx", "dist", "cli.mjs");

const PAGES = ["/events", "/followers", "/publications", "/keys", "/usage", "/api-docs", "/signin", "/"] as const;
const BASELINE_ROUTE = "/_not-found";
const FIRST_LOAD_RATIO_TARGET = 1.3;
const LCP_TARGET_MS = 1500;
const CLS_TARGET = 0.05;
const RUNS = 3;
const EVENT_ID = "1000000000000001";
const STARTUP_TIMEOUT_MS = 15 * 60_000;

class BenchError extends Error {}

// ---------------------------------------------------------------------------------------------
// (a) First Load JS from the build output

const buildManifestSchema = z.object({ rootMainFiles: z.array(z.string()) });
const routesManifestSchema = z.record(z.string(), z.string());
const clientManifestSchema = z.record(z.string(), z.object({ entryJSFiles: z.record(z.string(), z.array(z.string())) }));

const readJson = (file: string): unknown => {
  if (!fs.existsSync(file)) throw new BenchError(`${path.relative(root, file)} is missing: is there a production build?`);
  return JSON.parse(fs.readFileSync(file, "utf8"));
};

/** "/events" → "/(console)/events/page": the app entry that renders the route. */
const pageEntry = (route: string, routes: Record<string, string>): string | undefined =>
  Object.entries(routes).find(([entry, routePath]) => routePath === route && entry.endsWith("/page"))?.[0];

/**
 * The JS a page's client reference manifest lists for its layouts, boundaries and page
 * (Turbopack writes `globalThis.__RSC_MANIFEST[entry] = {...}`; run it in an empty context).
 */
const entryJsFiles = (entry: string): string[] => {
  const file = path.join(nextDir, "server", "app", `${entry}_client-reference-manifest.js`);
  if (!fs.existsSync(file)) throw new BenchError(`no client reference manifest for ${entry}`);
  const sandbox: Record<string, unknown> = {};
  vm.runInNewContext(fs.readFileSync(file, "utf8"), sandbox, { filename: file, timeout: 5000 });
  const manifest = clientManifestSchema.parse(sandbox.__RSC_MANIFEST)[entry];
  if (!manifest) throw new BenchError(`${path.relative(root, file)} has no entry ${entry}`);
  return Object.values(manifest.entryJSFiles).flat();
};

const gzipCache = new Map<string, number>();
const gzipBytes = (file: string): number => {
  const cached = gzipCache.get(file);
  if (cached !== undefined) return cached;
  const size = zlib.gzipSync(fs.readFileSync(path.join(nextDir, file))).length;
  gzipCache.set(file, size);
  return size;
};

type FirstLoad = { route: string; files: string[]; gzipBytes: number };

const firstLoad = (route: string, rootMainFiles: readonly string[], routes: Record<string, string>): FirstLoad | null => {
  const entry = pageEntry(route, routes);
  if (!entry) return null;
  // rootMainFiles: the runtime every page starts with. Polyfills are nomodule: modern browsers skip them.
  const files = [...new Set([...rootMainFiles, ...entryJsFiles(entry)])].filter((file) => file.endsWith(".js")).sort();
  return { route, files, gzipBytes: files.reduce((sum, file) => sum + gzipBytes(file), 0) };
};

const kB = (bytes: number) => (bytes / 1000).toFixed(1);

const reportFirstLoad = () => {
  const { rootMainFiles } = buildManifestSchema.parse(readJson(path.join(nextDir, "build-manifest.json")));
  const routes = routesManifestSchema.parse(readJson(path.join(nextDir, "app-path-routes-manifest.json")));
  const baseline = firstLoad(BASELINE_ROUTE, rootMainFiles, routes);
  if (!baseline) throw new BenchError(`the build has no ${BASELINE_ROUTE} page to take the baseline from`);

  console.log(`\n(a) First Load JS — gzip (zlib default level) of the JS files a first visit loads, from .next manifests`);
  console.log(`    baseline = ${BASELINE_ROUTE} (runtime + root layout's shared chunks): ${baseline.files.length} files, ${kB(baseline.gzipBytes)} kB`);
  const widths = [14, 6, 10, 12, 11, 16];
  console.log(formatRow(["page", "files", "kB gzip", "+ page kB", "× baseline", `target ≤ ${FIRST_LOAD_RATIO_TARGET}`], widths));
  let over = 0;
  for (const route of PAGES) {
    const load = firstLoad(route, rootMainFiles, routes);
    if (!load) {
      console.log(formatRow([route, "—", "—", "—", "—", "not in this build"], widths));
      continue;
    }
    const ratio = load.gzipBytes / baseline.gzipBytes;
    if (ratio > FIRST_LOAD_RATIO_TARGET) over += 1;
    console.log(
      formatRow(
        [route, String(load.files.length), kB(load.gzipBytes), kB(load.gzipBytes - baseline.gzipBytes), ratio.toFixed(2), ratio <= FIRST_LOAD_RATIO_TARGET ? "ok" : "OVER"],
        widths,
      ),
    );
  }
  console.log(over === 0 ? "    every page within the target" : `    ${over} page(s) over the target`);
};

// ---------------------------------------------------------------------------------------------
// (b) LCP and CLS of /events with a card, in Chromium

/** Collected in the page before any of its scripts runs (addInitScript), read back after the card shows. */
type Vitals = {
  lcpMs: number | null;
  lcpElement: string;
  cls: number;
  /** When the Run click that started the lookup was made, ms after navigation start. */
  runClickMs: number | null;
};

declare global {
  interface Window {
    __benchUi?: Vitals;
  }
}

/**
 * LCP: the last candidate (render time, else load time). CLS: the largest session window of
 * shifts without recent input (gaps < 1 s, windows ≤ 5 s), as web-vitals computes it.
 */
const installObservers = () => {
  const vitals: Vitals = { lcpMs: null, lcpElement: "", cls: 0, runClickMs: null };
  window.__benchUi = vitals;
  // The page's own Run button, clicked from script on every frame until the lookup starts (a
  // click before hydration does nothing): no round trip to the bench between page and click.
  const clickRunWhenReady = () => {
    const button = document.querySelector("[data-testid=event-run-saved]");
    if (button instanceof HTMLButtonElement) {
      vitals.runClickMs = performance.now();
      button.click();
    } else if (document.querySelector("[data-testid=event-card]")) {
      return;
    }
    if (performance.now() < 30_000) requestAnimationFrame(clickRunWhenReady);
  };
  requestAnimationFrame(clickRunWhenReady);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const candidate = entry as PerformanceEntry & { renderTime: number; loadTime: number; element: Element | null };
      vitals.lcpMs = candidate.renderTime || candidate.loadTime || candidate.startTime;
      const element = candidate.element;
      vitals.lcpElement = element
        ? `${element.tagName.toLowerCase()}${element.getAttribute("data-testid") ? `[data-testid=${element.getAttribute("data-testid")}]` : ""}`
        : "(removed element)";
    }
  }).observe({ type: "largest-contentful-paint", buffered: true });
  let sessionValue = 0;
  let sessionStart = 0;
  let lastShift = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const shift = entry as PerformanceEntry & { value: number; hadRecentInput: boolean };
      if (shift.hadRecentInput) continue;
      if (sessionValue > 0 && shift.startTime - lastShift < 1000 && shift.startTime - sessionStart < 5000) {
        sessionValue += shift.value;
      } else {
        sessionValue = shift.value;
        sessionStart = shift.startTime;
      }
      lastShift = shift.startTime;
      vitals.cls = Math.max(vitals.cls, sessionValue);
    }
  }).observe({ type: "layout-shift", buffered: true });
};

const adminSchema = z.object({ email: z.string().min(1), password: z.string().min(1) });

const readGeneratedAdmin = (dataDir: string) => {
  const text = fs.readFileSync(path.join(dataDir, "initial-admin.txt"), "utf8");
  const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, "m").exec(text)?.[1]?.trim();
  return adminSchema.parse({ email: field("email"), password: field("password") });
};

/** Signs the generated admin in through the form and gives the console a key; returns the session. */
const signInWithConsoleKey = async (browser: Browser, baseUrl: string, dataDir: string) => {
  const admin = readGeneratedAdmin(dataDir);
  const context = await browser.newContext({ baseURL: baseUrl });
  try {
    const page = await context.newPage();
    await page.goto("/signin");
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => url.pathname !== "/signin");
    // Same-origin fetch from the signed-in page, so the console API's CSRF check passes.
    const created = await page.evaluate(async () => {
      const response = await fetch("/api/keys", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ name: "bench:ui", credits: 1000, qpsLimit: 100, useForConsole: true }),
      });
      return { status: response.status, text: await response.text() };
    });
    if (created.status !== 201) throw new BenchError(`creating the console key answered ${created.status}: ${created.text}`);
    return await context.storageState();
  } finally {
    await context.close();
  }
};

type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

/**
 * One cold visit (fresh context, empty HTTP cache) of /events?q=<id>, the card shown by the
 * page's own Run button. The click is made from script: Chromium ends LCP at the first trusted
 * input, and a scripted click keeps the card (what a shared link shows once run) in the
 * measurement. Shifts it causes count in CLS for the same reason (no input excuses them).
 */
const measureEventsPage = async (browser: Browser, baseUrl: string, storageState: StorageState): Promise<Vitals> => {
  const context = await browser.newContext({ baseURL: baseUrl, storageState, viewport: { width: 1280, height: 800 } });
  try {
    // tsx compiles with esbuild's keepNames, which wraps named inner functions in __name(fn, "name");
    // the serialised function runs in the page, where that helper does not exist.
    await context.addInitScript({ content: "globalThis.__name ??= (target) => target;" });
    await context.addInitScript(installObservers);
    const page = await context.newPage();
    await page.goto(`/events?q=${EVENT_ID}`, { waitUntil: "load" });
    await page.getByTestId("event-card").waitFor({ state: "visible", timeout: 30_000 });
    await page.waitForFunction(() => {
      const cover = document.querySelector("[data-testid=event-cover]");
      return cover === null || (cover instanceof HTMLImageElement && cover.complete);
    });
    // Let the last paint and any late shift reach the observers.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 1000))));
    const vitals = await page.evaluate(() => window.__benchUi);
    if (!vitals) throw new BenchError("the performance observers did not run");
    return vitals;
  } finally {
    await context.close();
  }
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

// ---------------------------------------------------------------------------------------------
// Server lifecycle: temp data dir, own process group, nothing outlives the bench

const resources: { server: ChildProcess | null; dataDir: string | null; browser: Browser | null } = {
  server: null,
  dataDir: null,
  browser: null,
};

const removeDataDir = () => {
  const { dataDir } = resources;
  resources.dataDir = null;
  if (dataDir !== null) fs.rmSync(dataDir, { recursive: true, force: true });
};

const cleanup = async () => {
  await resources.browser?.close().catch(() => undefined);
  resources.browser = null;
  if (resources.server !== null) await stopGroup(resources.server, 10_000);
  resources.server = null;
  removeDataDir();
};

releaseOnExit({
  onExit: () => {
    const pid = resources.server?.pid;
    if (pid !== undefined) killGroupNow(pid);
    removeDataDir();
  },
  cleanup,
});

const waitUntilHealthy = async (server: ChildProcess, baseUrl: string, logFile: string) => {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new BenchError(`the server exited during startup; last log lines:\n${tail(logFile, 30)}`);
    }
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new BenchError(`the server was not healthy within ${STARTUP_TIMEOUT_MS / 60_000} min; last log lines:\n${tail(logFile, 30)}`);
};

/** The temp database only: never a configured PostgreSQL, Redis or public URL. */
const serverEnv = (port: number, dataDir: string): NodeJS.ProcessEnv => {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited.DATABASE_URL;
  delete inherited.REDIS_URL;
  delete inherited.PUBLIC_URL;
  return {
    ...inherited,
    NODE_ENV: "production",
    PORT: String(port),
    DATA_DIR: dataDir,
    AUTH_SECRET: crypto.randomBytes(32).toString("base64url"),
  };
};

const reportVitals = async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "social-lookup-bench-ui-"));
  resources.dataDir = dataDir;
  const logFile = path.join(dataDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;

  await waitForOtherBuilds();
  const server = spawnLogged(process.execPath, [tsxCli, "scripts/start.ts"], { cwd: root, env: serverEnv(port, dataDir), logFile });
  resources.server = server;
  await waitUntilHealthy(server, baseUrl, logFile);

  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: [...CHROMIUM_ARGS] });
  resources.browser = browser;
  const storageState = await signInWithConsoleKey(browser, baseUrl, dataDir);

  console.log(`\n(b) /events with the card of event ${EVENT_ID} — Chromium ${browser.version()}, 1280×800, cold cache each run`);
  console.log(`    production server ${baseUrl} on a temp database; the Run click is scripted so LCP covers the card`);
  const widths = [8, 14, 10, 10, 34];
  console.log(formatRow(["run", "Run click ms", "LCP ms", "CLS", "LCP element"], widths));
  const runs: Vitals[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    const vitals = await measureEventsPage(browser, baseUrl, storageState);
    runs.push(vitals);
    const ms = (value: number | null) => (value === null ? "—" : value.toFixed(0));
    console.log(formatRow([String(run), ms(vitals.runClickMs), ms(vitals.lcpMs), vitals.cls.toFixed(4), vitals.lcpElement], widths));
  }
  const lcpMedian = median(runs.flatMap((vitals) => (vitals.lcpMs === null ? [] : [vitals.lcpMs])));
  const clsMedian = median(runs.map((vitals) => vitals.cls));
  console.log(
    `    median: LCP ${Number.isNaN(lcpMedian) ? "—" : `${lcpMedian.toFixed(0)} ms`} (target ≤ ${LCP_TARGET_MS} ms: ${lcpMedian <= LCP_TARGET_MS ? "ok" : "OVER"}), ` +
      `CLS ${clsMedian.toFixed(4)} (target ≤ ${CLS_TARGET}: ${clsMedian <= CLS_TARGET ? "ok" : "OVER"})`,
  );

  console.log(`\n(c) Lighthouse (desktop preset, Chromium ${browser.version()}), target ≥ ${LIGHTHOUSE_TARGET} in each category`);
  printLighthouse(await measureLighthouse(baseUrl, PAGES, storageState, CHROMIUM_ARGS));
};

/** `--only=bundle`: the First Load JS table alone (part a), for checking a bundle change. */
const onlyBundle = (argv: readonly string[]): boolean => {
  const only = argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
  if (only === undefined) return false;
  if (only !== "bundle") throw new BenchError(`--only=${only}: the one part that runs alone is --only=bundle`);
  return true;
};

const main = async () => {
  const bundleOnly = onlyBundle(process.argv.slice(2));
  console.log(machineSummary());
  await waitForOtherBuilds();
  if (ensureBuild(root) === "current") console.log("production build: current");
  reportFirstLoad();
  if (!bundleOnly) await reportVitals();
};

main()
  .then(cleanup)
  .catch(async (error: unknown) => {
    console.error(`bench:ui failed: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanup();
    process.exitCode = 1;
  });
