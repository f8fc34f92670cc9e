import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";
import { securityHeaders } from "./lib/http/security-headers";

const config = (phase: string): NextConfig => ({
  // Native / Node-only drivers are loaded at runtime, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "ioredis"],
  poweredByHeader: false,
  reactStrictMode: true,
  // A console route with a trailing slash is answered, not redirected (/v1 never reaches Next).
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
