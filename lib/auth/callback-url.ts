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

/**
 * next-auth's redirect after sign-in or sign-out (its `redirect` callback): a path or a URL of
 * this site's own origin (`baseUrl`); anything else — another origin, `//host`, a malformed
 * absolute URL, which next-auth's default would throw on (a 500) — leads to the home page.
 */
export const ownOriginRedirect = (url: string, baseUrl: string): string => {
  try {
    const home = new URL("/", baseUrl);
    const target = new URL(url, home);
    return target.origin === home.origin ? target.href : home.href;
  } catch {
    return `${baseUrl}/`;
  }
};

/** next-auth reads a callbackUrl from the query of its routes too. */
export const AUTH_ROUTES_PREFIX = "/api/auth/";

/**
 * Whether next-auth's own check takes this callback URL: a path, or an absolute http(s) URL.
 * Anything else — malformed, `javascript:`, `data:`, `ftp:` — it refuses with an error-level log
 * entry (a stack) and a 500, so the front drops such a value first and next-auth never sees it.
 */
const passesNextAuthCheck = (value: string): boolean => {
  if (value.startsWith("/") && !value.startsWith("//")) return true;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
};

/**
 * The query of a next-auth request with every `callbackUrl` next-auth would refuse removed, or
 * null when there is nothing to remove. Relative paths and well-formed http(s) URLs stay: the
 * redirect callback (ownOriginRedirect) decides where they lead.
 */
export const withoutMalformedCallbackUrl = (search: string): string | null => {
  const query = new URLSearchParams(search);
  if (query.getAll("callbackUrl").every(passesNextAuthCheck)) return null;
  query.delete("callbackUrl");
  const rest = query.toString();
  return rest === "" ? "" : `?${rest}`;
};

/** next-auth's callback-URL cookie, under both of its names (the second on https). */
const CALLBACK_COOKIE = /^(?:__Secure-)?next-auth\.callback-url$/;

/**
 * The Cookie header of a next-auth request without a callback-URL cookie next-auth would refuse
 * (it runs the same check on the cookie as on the query), or null when there is nothing to remove.
 */
export const withoutMalformedCallbackCookie = (cookieHeader: string): string | null => {
  const pairs = cookieHeader.split(";");
  const kept = pairs.filter((pair) => {
    const separator = pair.indexOf("=");
    if (separator < 0 || !CALLBACK_COOKIE.test(pair.slice(0, separator).trim())) return true;
    const raw = pair.slice(separator + 1).trim();
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      return false;
    }
    return passesNextAuthCheck(value);
  });
  return kept.length === pairs.length ? null : kept.join(";");
};
