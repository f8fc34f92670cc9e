import crypto from "node:crypto";

/**
 * The security headers of every answer, and the one place the Content-Security-Policy is written.
 *
 * Pages get a policy with a fresh script nonce per request: the process front (lib/front) makes
 * it for every request it hands to Next and puts it on the request (Next reads the nonce there
 * and sets it on each script it renders: its runtime, the page's chunks, the inline RSC payload)
 * and on the answer. `'strict-dynamic'` lets those nonced scripts load the chunks they import;
 * no other script runs, inline or not, and there is no `'unsafe-inline'` for scripts.
 * `'self'` only matters to browsers older than `'strict-dynamic'` (which ignore it otherwise).
 * /v1 answers (JSON, never a page) get the policy without a nonce: scripts from this origin only.
 *
 * Styles keep `'unsafe-inline'`: React `style` attributes (widths of bars, virtual list offsets)
 * are inline styles, and a nonce in style-src would switch `'unsafe-inline'` off. Styles run no
 * script. `'unsafe-eval'` is never sent in production; `next dev` alone adds it because React's
 * dev build uses eval to rebuild server error stacks in the browser.
 * No `upgrade-insecure-requests`: a self-hosted instance may be served over plain http.
 */
export const CONTENT_SECURITY_POLICY = "Content-Security-Policy";

/** 128 random bits in base64: the form Next reads back from the policy (`'nonce-…'`). */
export const newScriptNonce = (): string => crypto.randomBytes(16).toString("base64");

export type PolicyOptions = { isDevServer: boolean; scriptNonce: string | null };

const scriptSources = ({ isDevServer, scriptNonce }: PolicyOptions): string =>
  [
    ...(scriptNonce === null ? [] : [`'nonce-${scriptNonce}'`, "'strict-dynamic'"]),
    "'self'",
    ...(isDevServer ? ["'unsafe-eval'"] : []),
  ].join(" ");

export const contentSecurityPolicy = (options: PolicyOptions): string =>
  [
    "default-src 'self'",
    `script-src ${scriptSources(options)}`,
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

/** The same on every answer, whatever it is; next.config.ts hands them to Next. */
export const fixedSecurityHeaders: readonly { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
];

/** Everything an answer the front makes itself (/v1) carries: no page, so no nonce. */
export const securityHeaders = (isDevServer: boolean): { key: string; value: string }[] => [
  { key: CONTENT_SECURITY_POLICY, value: contentSecurityPolicy({ isDevServer, scriptNonce: null }) },
  ...fixedSecurityHeaders,
];

/** A page's policy, with a nonce of its own. */
export const pagePolicy = (isDevServer: boolean): string => contentSecurityPolicy({ isDevServer, scriptNonce: newScriptNonce() });

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
