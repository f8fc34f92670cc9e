/**
 * Security headers for every response (pages, /api, static files, and /v1, which the process
 * front answers itself). next.config.ts hands them to Next; lib/front adds them to /v1 answers.
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

export const securityHeaders = (isDevServer: boolean): { key: string; value: string }[] => [
  { key: "Content-Security-Policy", value: contentSecurityPolicy(isDevServer) },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
];
