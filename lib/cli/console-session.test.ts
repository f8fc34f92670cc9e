import { describe, expect, it } from "vitest";
import { cookieHeader, parseJsonOrUndefined, sessionCookie, setCookiePairs } from "./console-session";

const withCookies = (...lines: string[]): Response => {
  const headers = new Headers();
  for (const line of lines) headers.append("Set-Cookie", line);
  return new Response(null, { headers });
};

describe("reading a console sign-in's cookies", () => {
  it("keeps each cookie's name and value, not its attributes, and values holding '='", () => {
    const pairs = setCookiePairs(withCookies("next-auth.csrf-token=abc%7Cdef; Path=/; HttpOnly", "token=a=b=; Path=/", "broken"));
    expect([...pairs]).toEqual([
      ["next-auth.csrf-token", "abc%7Cdef"],
      ["token", "a=b="],
    ]);
    expect(cookieHeader(pairs)).toBe("next-auth.csrf-token=abc%7Cdef; token=a=b=");
  });

  it("finds the session cookie, split into chunks or not, and nothing else", () => {
    expect(sessionCookie(setCookiePairs(withCookies("next-auth.session-token=jwt; Path=/", "other=1")))).toBe("next-auth.session-token=jwt");
    expect(sessionCookie(setCookiePairs(withCookies("next-auth.session-token.0=a", "next-auth.session-token.1=b")))).toBe(
      "next-auth.session-token.0=a; next-auth.session-token.1=b",
    );
    expect(sessionCookie(setCookiePairs(withCookies("next-auth.session-tokenx=1", "next-auth.csrf-token=2")))).toBeNull();
    // An https console's name.
    expect(sessionCookie(setCookiePairs(withCookies("__Secure-next-auth.session-token=jwt; Secure", "x=1")))).toBe("__Secure-next-auth.session-token=jwt");
  });

  it("parses JSON bodies and gives undefined for the rest", () => {
    expect(parseJsonOrUndefined('{"url":"/keys"}')).toEqual({ url: "/keys" });
    expect(parseJsonOrUndefined("<html>")).toBeUndefined();
  });
});
