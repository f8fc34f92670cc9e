import { NextResponse, type NextRequest } from "next/server";
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

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
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
    "/events/:path*",
    "/followers/:path*",
    "/publications/:path*",
    "/batches/:path*",
    "/keys/:path*",
    "/usage/:path*",
    "/workspace/:path*",
    "/admin/:path*",
    "/account/:path*",
  ],
};
