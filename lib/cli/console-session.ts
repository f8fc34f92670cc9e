/**
 * Signing in to a running console from outside a browser (bench:batch, the API, security and
 * scale suites): next-auth's CSRF cookie and token, then the credentials callback, as the sign-in
 * page does it. Only fetch; nothing here knows the app's internals.
 */
export const SESSION_COOKIE = "next-auth.session-token";

/** name → value of every cookie a response sets. */
export const setCookiePairs = (response: Response): Map<string, string> => {
  const pairs = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(";")[0] ?? "";
    const at = pair.indexOf("=");
    if (at > 0) pairs.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return pairs;
};

/** A Cookie request header carrying `pairs`. */
export const cookieHeader = (pairs: Iterable<readonly [string, string]>): string =>
  [...pairs].map(([name, value]) => `${name}=${value}`).join("; ");

/** The session cookie among `pairs` as a Cookie header (next-auth may split it into `.0`, `.1`, …), or null. */
export const sessionCookie = (pairs: Map<string, string>): string | null => {
  // An https console names it `__Secure-next-auth.session-token`.
  const isSession = (name: string) => [SESSION_COOKIE, `__Secure-${SESSION_COOKIE}`].some((cookie) => name === cookie || name.startsWith(`${cookie}.`));
  const session = [...pairs].filter(([name]) => isSession(name));
  return session.length > 0 ? cookieHeader(session) : null;
};

/** The parsed JSON of a body, or undefined when it is not JSON. */
export const parseJsonOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export type SignIn = { status: number; session: string | null };

/** Signs in with email and password; `session` is the Cookie header of the new session, null when refused. */
export const signInWithPassword = async (
  baseUrl: string,
  credentials: { email: string; password: string },
  callbackPath = "/keys",
): Promise<SignIn> => {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const csrfCookies = setCookiePairs(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookieHeader(csrfCookies) },
    body: new URLSearchParams({ csrfToken, ...credentials, callbackUrl: `${baseUrl}${callbackPath}`, json: "true" }),
  });
  await response.arrayBuffer();
  return { status: response.status, session: sessionCookie(setCookiePairs(response)) };
};
