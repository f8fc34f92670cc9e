import path from "node:path";

/**
 * How the production process (server.ts, the process front) is started — by `npm start`,
 * `start:cluster`, the benches and the tests' servers; the Dockerfile's CMD and `npm run serve` say
 * the same (tests/unit/deployment.test.ts holds them to it).
 *
 * --max-semi-space-size=32 (MiB): every /v1 answer allocates its ~10 KB body and headers; a larger
 * young generation collects them in fewer scavenges and promotes less to the old generation
 * (measured: ~5–10 % less CPU per followers lookup under `npm run bench`; docs/performance.md).
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=32"] as const;

/** The arguments for `node` (process.execPath): tsx's CLI, the flags, server.ts. */
export const serverArgs = (appDir: string): string[] => [
  path.join(appDir, "node_modules", "tsx", "dist", "cli.mjs"),
  ...SERVER_NODE_FLAGS,
  "server.ts",
];
