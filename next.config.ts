import type { NextConfig } from "next";
import { fixedSecurityHeaders } from "./lib/http/security-headers";

const config: NextConfig = {
  // Native / Node-only drivers are loaded at runtime, not bundled; so are the metrics, log and
  // trace libraries, so that the front and the console's routes share one copy of each.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "ioredis", "prom-client", "pino", "pino-pretty", "@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http"],
  poweredByHeader: false,
  reactStrictMode: true,
  // A console route with a trailing slash is answered, not redirected (/v1 never reaches Next).
  skipTrailingSlashRedirect: true,
  typedRoutes: false,
  // `npm test` runs `tsc --noEmit` over the whole tree first; skipping the second type check here
  // halves build time on small machines.
  typescript: { ignoreBuildErrors: true },
  // The Content-Security-Policy is not here: each page needs its own nonce, so the process front
  // (lib/front) sets it per request on everything it hands to Next.
  async headers() {
    return [{ source: "/:path*", headers: [...fixedSecurityHeaders] }];
  },
};

export default config;
