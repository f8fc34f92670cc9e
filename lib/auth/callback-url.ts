/**
 * Where to go after signing in. Only same-origin relative paths are accepted (no `//host`, no
 * backslashes, no scheme), and never the sign-in page or the JSON API itself; anything else
 * falls back to the console's first page. Safe to import in the browser.
 */
export const DEFAULT_CALLBACK_URL = "/events";

/** Set by proxy.ts on console pages: the path (and query) the console layout is rendering. */
export const CONSOLE_PATH_HEADER = "x-console-path";

const PLACEHOLDER_ORIGIN = "http://callback.invalid";

export const safeCallbackUrl = (value: unknown, fallback: string = DEFAULT_CALLBACK_URL): string => {
  if (typeof value !== "string" || value.length > 2000) return fallback;
  // Browsers treat `\` like `/`, so `/\evil.test` would leave the site; control characters and
  // spaces have no place in a path we produced ourselves.
  if (!value.startsWith("/") || value.startsWith("//") || /[\\\s\u0000-\u001f\u007f]/.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return fallback;
  if (url.pathname === "/signin" || url.pathname.startsWith("/signin/") || url.pathname.startsWith("/api/")) return fallback;
  url.searchParams.delete("_rsc");
  return `${url.pathname}${url.search}${url.hash}`;
};
