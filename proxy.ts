import { NextResponse, type NextRequest } from "next/server";
import { plainError } from "@/lib/api/envelope";
import { messages } from "@/lib/api/errors";
import { CONSOLE_PATH_HEADER } from "@/lib/auth/callback-url";

/**
 * A cheap first gate for console pages: no next-auth session cookie, no page — straight to the
 * sign-in page with the way back. Whether the session is valid (signature, user active, session
 * version) is decided by app/(console)/layout.tsx; the path travels there in a request header,
 * because a layout is not told which page it wraps.
 */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

// next-auth splits a large JWT into `<name>.0`, `<name>.1`, ...
const hasSessionCookie = (request: NextRequest): boolean =>
  request.cookies
    .getAll()
    .some(({ name }) => SESSION_COOKIES.some((cookie) => name === cookie || name.startsWith(`${cookie}.`)));

const OPERATION_PATH = /^\/v1\/(?:eventsite\/event_details|eventsite\/event_details_id|pinsite\/followers|jobsite\/get_user_publications|openapi\.json|account)\/?$/;
const isOperationPath = (pathname: string) => OPERATION_PATH.test(pathname);
const FRAMEWORK_HEADERS = ["rsc", "next-router-prefetch", "next-router-state-tree", "next-router-segment-prefetch", "x-middleware-prefetch"];

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  // /v1 paths that are not an operation get here (see the matcher) — including ones whose
  // percent-encoding is malformed, which Next's router would otherwise answer with a plain 500 —
  // and operations that carry Next's navigation headers.
  if (pathname === "/v1" || pathname.startsWith("/v1/")) {
    if (!isOperationPath(pathname)) return plainError(404, messages.notFoundPath);
    // An operation asked with Next's own navigation headers: drop them, so Next answers the
    // route itself and not a framework redirect or an empty prefetch body.
    const headers = new Headers(request.headers);
    for (const name of FRAMEWORK_HEADERS) headers.delete(name);
    return NextResponse.next({ request: { headers } });
  }
  if (!hasSessionCookie(request)) {
    const signIn = new URL("/signin", request.url);
    signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
    return NextResponse.redirect(signIn);
  }
  const headers = new Headers(request.headers);
  headers.set(CONSOLE_PATH_HEADER, `${pathname}${search}`);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  matcher: [
    // Operations reach the proxy only when they carry Next's navigation headers (the matcher
    // must be literal: Next reads it without running this file).
    { source: "/v1/:path*", has: [{ type: "header", key: "rsc" }] },
    { source: "/v1/:path*", has: [{ type: "header", key: "next-router-prefetch" }] },
    { source: "/v1/:path*", has: [{ type: "header", key: "x-middleware-prefetch" }] },
    "/v1",
    "/v1/((?!(?:eventsite/event_details|eventsite/event_details_id|pinsite/followers|jobsite/get_user_publications|openapi\\.json|account)/?$).*)",
    "/events/:path*",
    "/followers/:path*",
    "/publications/:path*",
    "/batches/:path*",
    "/keys/:path*",
    "/usage/:path*",
    "/admin/:path*",
    "/account/:path*",
  ],
};
