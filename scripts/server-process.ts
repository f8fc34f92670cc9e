import path from "node:path";

/**
 * How the production process (server.ts, the process front) is started — by `npm start`,
 * `start:cluster`, the benches and the tests' servers; the Dockerfile's CMD says the same
 * (tests/unit/deployment.test.ts holds it to this).
 *
 * No V8 flags: a larger young generation (--max-semi-space-size=16/32/64) was measured against
 * the default on a quiet machine and changed neither throughput nor p99 beyond run-to-run noise
 * (docs/performance.md).
 */
export const serverArgs = (appDir: string): string[] => [path.join(appDir, "node_modules", "tsx", "dist", "cli.mjs"), "server.ts"];
