import os from "node:os";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

const root = path.dirname(new URL(import.meta.url).pathname);

/**
 * Unit files that prove a bound at full volume (memory caps over 70 MB inputs): the "volume"
 * project, run by npm run test:proofs (scripts/test-proofs.sh), not by npm test.
 */
const VOLUME_FILES = ["lib/import/import-memory.test.ts"];

const UNIT_SETTINGS: { environment: "node"; globalSetup: string[]; maxWorkers: number; testTimeout: number; hookTimeout: number } = {
  environment: "node",
  globalSetup: ["tests/support/pglite-template.ts"],
  // Vitest's default (cores − 1) is one worker on a 2-core machine; the unit files mostly
  // wait on their own embedded databases, so two halve the stage there (4.6 → 2.8 min).
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
  testTimeout: 30_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "scripts/**/*.test.ts", "tests/unit/**/*.test.ts", "tests/security/**/*.test.ts"],
          // The security suite's HTTP half runs in the API project, against its production servers.
          exclude: [...configDefaults.exclude, "tests/security/**/*.api.test.ts", ...VOLUME_FILES],
          ...UNIT_SETTINGS,
        },
      },
      {
        extends: true,
        test: { name: "volume", include: VOLUME_FILES, ...UNIT_SETTINGS },
      },
      {
        extends: true,
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts", "tests/security/**/*.api.test.ts"],
          environment: "node",
          globalSetup: ["tests/api/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: "scale",
          include: ["tests/scale/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/scale/global-setup.ts"],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
