import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";
import { env } from "./lib/env";

/**
 * Security headers for every response (pages, /v1, /api, static files).
 * 'unsafe-inline' in script-src is needed for Next's inline bootstrap scripts (no nonces: pages
 * stay statically renderable). 'unsafe-eval' is never sent in production; `next dev` alone adds
 * it because React's dev build uses eval to rebuild server error stacks in the browser.
 * No `upgrade-insecure-requests`: a self-hosted instance may be served over plain http.
 */
const contentSecurityPolicy = (isDevServer: boolean): string =>
  [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${isDevServer ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    // Record images are third-party URLs, and demo images carry PUBLIC_URL, which may name this
    // server differently from the address the browser used (localhost vs 127.0.0.1): any image
    // source is allowed; images cannot run script.
    "img-src 'self' data: https: http:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");

const securityHeaders = (isDevServer: boolean) => [
  { key: "Content-Security-Policy", value: contentSecurityPolicy(isDevServer) },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
];

const config = (phase: string): NextConfig => ({
  // The container image builds with NEXT_OUTPUT=standalone; `npm start` uses the regular output.
  output: env().NEXT_OUTPUT,
  // Native / Node-only drivers are loaded at runtime, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "ioredis"],
  poweredByHeader: false,
  reactStrictMode: true,
  // /v1/... and /v1/.../ must reach the route handlers (JSON envelope), never a 308 HTML redirect.
  skipTrailingSlashRedirect: true,
  typedRoutes: false,
  // `npm test` runs `tsc --noEmit` over the whole tree first; skipping the second type check here
  // halves build time on small machines.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders(phase === PHASE_DEVELOPMENT_SERVER) }];
  },
});

export default config;
