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

/** A year, as HSTS deployments commonly start; the browser renews it on every answer. */
const HSTS_MAX_AGE_S = 31_536_000;

/**
 * Strict-Transport-Security when the console's own origin (PUBLIC_URL) is https: a browser then
 * never tries plain http for it again. Nothing for http (or unset): a self-hosted instance may
 * be served over plain http. Added at run time by the process front to every answer (PUBLIC_URL
 * is not known when next.config.ts's headers are built).
 */
export const transportSecurityHeaders = (publicUrl: string | undefined): { key: string; value: string }[] =>
  publicUrl?.startsWith("https://") ? [{ key: "Strict-Transport-Security", value: `max-age=${HSTS_MAX_AGE_S}` }] : [];
