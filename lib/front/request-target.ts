/**
 * What a request line asks for, read the way Next reads it: dot segments (also `%2e`) resolved,
 * percent-encoding otherwise untouched, repeated slashes and backslashes answered with a redirect
 * to the clean path (always a path: never another host).
 */
export type RequestTarget =
  /** origin-form `/path?query`, or absolute-form `http://host/path` whose host is ignored. */
  | { kind: "path"; pathname: string; search: string; absoluteForm: boolean }
  /** `/v1//x` or `/v1\x`: the same path without the doubled slash (Next answers these with 308 too). */
  | { kind: "redirect"; pathname: string; location: string }
  /** `*`, an authority, or something that is no URL at all. */
  | { kind: "invalid" };

const BASE = "http://front.invalid";

const parse = (target: string): URL | null => {
  try {
    return new URL(target, BASE);
  } catch {
    return null;
  }
};

export const readRequestTarget = (rawUrl: string): RequestTarget => {
  if (!rawUrl.startsWith("/")) {
    if (!/^https?:\/\//i.test(rawUrl)) return { kind: "invalid" };
    const url = parse(rawUrl);
    return url === null ? { kind: "invalid" } : { kind: "path", pathname: url.pathname, search: url.search, absoluteForm: true };
  }
  const queryAt = rawUrl.indexOf("?");
  const rawPath = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const rawSearch = queryAt === -1 ? "" : rawUrl.slice(queryAt);
  if (/\/\/|\\/.test(rawPath)) {
    const clean = rawPath.replace(/\\/g, "/").replace(/\/{2,}/g, "/");
    const url = parse(clean);
    return url === null ? { kind: "invalid" } : { kind: "redirect", pathname: url.pathname, location: `${clean}${rawSearch}` };
  }
  const url = parse(rawUrl);
  return url === null ? { kind: "invalid" } : { kind: "path", pathname: url.pathname, search: url.search, absoluteForm: false };
};

export const isV1Path = (pathname: string): boolean => pathname === "/v1" || pathname.startsWith("/v1/");

/**
 * A path whose percent-escapes are not UTF-8 (`%FF`, overlong `%C0%80`): Next's router answers
 * such a path with a plain 500 before any route runs, so the front answers it first.
 */
export const hasMalformedEscapes = (pathname: string): boolean =>
  pathname.split("/").some((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
