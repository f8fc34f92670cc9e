import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS } from "./lib/cli/chromium";

/**
 * Browser specs run against the production server (`scripts/start.ts`: builds only when there is
 * no current build, migrates, seeds the demo data, serves on PORT) with a throw-away data dir.
 */
const port = Number(process.env.E2E_PORT ?? 3210);
const baseURL = `http://127.0.0.1:${port}`;

// Playwright loads this file in the runner and again in each worker; the env var carries the
// runner's temp dir to the workers so only one directory is created per run.
const dataDir = process.env.E2E_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "social-lookup-e2e-"));
process.env.E2E_DATA_DIR = dataDir;

const chromiumArgs = [...CHROMIUM_ARGS];

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  workers: 1,
  fullyParallel: false,
  // The list for the terminal; the JSON report for the lane's summary table (scripts/lane.sh sets
  // PLAYWRIGHT_JSON_OUTPUT_FILE, which wins over this default).
  reporter: [["list"], ["json", { outputFile: "test-results/playwright-results.json" }]],
  use: {
    baseURL,
    screenshot: "only-on-failure",
    trace: "off",
  },
  projects: [
    // Runs first, against the untouched install (no other spec has made a key or a lookup yet).
    {
      name: "first-sign-in",
      testMatch: "first-sign-in.spec.ts",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: { executablePath: "/usr/bin/chromium", args: chromiumArgs },
      },
    },
    {
      name: "chromium",
      testIgnore: "first-sign-in.spec.ts",
      dependencies: ["first-sign-in"],
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: { executablePath: "/usr/bin/chromium", args: chromiumArgs },
      },
    },
  ],
  webServer: {
    command: "npx tsx scripts/start.ts",
    url: `${baseURL}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      PUBLIC_URL: baseURL,
      NODE_ENV: "production",
      // The specs walk the invitation page's set-a-password path, which this setting opens (the API
      // suite covers the default, where the service administrator makes every account).
      INVITATION_SIGNUP: "on",
    },
  },
});
