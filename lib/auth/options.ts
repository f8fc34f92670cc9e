import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env } from "@/lib/env";
import { getDb } from "@/lib/database";
import { log } from "@/lib/log";
import { authSecret } from "@/lib/security/secrets";
import { findUserWithPassword } from "@/lib/users/repository";
import { ownOriginRedirect } from "./callback-url";
import { clientIp } from "./client-ip";
import { newSessionId, revokeSession } from "./session-store";
import { SignInError, signInWithPassword } from "./sign-in";

/**
 * next-auth 4: Credentials against our users table, optional OIDC, JWT sessions signed with
 * AUTH_SECRET. A session carries the user id, the session version it was issued under and a
 * session id; currentUser() checks all three against the database on every request, so
 * disabling a user, "sign out everywhere" and signing out (the id is revoked) end sessions at once.
 */
const SESSION_MAX_AGE_S = 12 * 60 * 60;

/** Kept as an export of this module for existing importers; it lives in ./client-ip. */
export { clientIp } from "./client-ip";

/**
 * next-auth 4 reads its own origin from process.env on every request (utils/detect-origin.js):
 * NEXTAUTH_URL when set; else, with AUTH_TRUST_HOST, the request's X-Forwarded-Host (or Host)
 * and X-Forwarded-Proto. With PUBLIC_URL configured it is pinned there, so links, redirects and
 * cookie security follow the configuration, not the request. Without it a self-hosted instance
 * is reached under many names (localhost, 127.0.0.1, a LAN name): the request's host is used,
 * and the process front removes a client's X-Forwarded-* unless TRUSTED_PROXY_HOPS > 0 (Next
 * then sets them from Host and the connection).
 */
const pinOrigin = (publicUrl: string | undefined): void => {
  if (publicUrl !== undefined) process.env.NEXTAUTH_URL = `${new URL(publicUrl).origin}/api/auth`;
  else delete process.env.NEXTAUTH_URL;
  process.env.AUTH_TRUST_HOST = "true";
};

/**
 * next-auth's complaints as log lines: the code and the error alone. Its default logger prints
 * whatever it was handed (a provider's settings, a request's body) into the text.
 */
const errorIn = (metadata: unknown): Error | undefined => {
  if (metadata instanceof Error) return metadata;
  const nested = typeof metadata === "object" && metadata !== null ? (metadata as { error?: unknown }).error : undefined;
  return nested instanceof Error ? nested : undefined;
};

const authLogger: NonNullable<AuthOptions["logger"]> = {
  // Mostly a client's doing (a tampered or expired cookie, a refused callback): warn, not error.
  error: (code, metadata) => log.warn(`sign-in library: ${code}`, { code, err: errorIn(metadata) }),
  warn: (code) => log.warn(`sign-in library: ${code}`, { code }),
  debug: (code) => log.debug(`sign-in library: ${code}`, { code }),
};

let cached: AuthOptions | undefined;

export const authOptions = (): AuthOptions => {
  if (cached) return cached;
  const config = env();
  pinOrigin(config.PUBLIC_URL);
  const providers: AuthOptions["providers"] = [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      authorize: async (credentials, request) => {
        const email = typeof credentials?.email === "string" ? credentials.email : "";
        const password = typeof credentials?.password === "string" ? credentials.password : "";
        if (!email || !password) throw new Error("Enter your email and password.");
        try {
          const user = await signInWithPassword(await getDb(), { email, password, ip: clientIp(request.headers) });
          return { id: user.id, email: user.email, name: user.name, role: user.role, sv: user.sessionVersion };
        } catch (error) {
          if (error instanceof SignInError) throw new Error(error.message);
          throw new Error("Sign-in is unavailable right now. Try again shortly.");
        }
      },
    }),
  ];
  if (config.oidc) {
    providers.push({
      id: "oidc",
      name: "Single sign-on",
      type: "oauth",
      wellKnown: `${config.oidc.issuer}/.well-known/openid-configuration`,
      clientId: config.oidc.clientId,
      clientSecret: config.oidc.clientSecret,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      checks: ["pkce", "state"],
      profile: (profile: { sub: string; email?: string; name?: string }) => ({
        id: profile.sub,
        email: profile.email ?? null,
        name: profile.name ?? profile.email ?? null,
      }),
    });
  }
  cached = {
    secret: authSecret(),
    logger: authLogger,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
    // An https console always gets Secure, __Secure- cookies, whatever a proxy forwarded.
    useSecureCookies: config.PUBLIC_URL?.startsWith("https://") ?? undefined,
    pages: { signIn: "/signin", error: "/signin" },
    providers,
    callbacks: {
      // After sign-in and sign-out: this site only; a malformed or foreign URL → the home page.
      redirect: async ({ url, baseUrl }) => ownOriginRedirect(url, baseUrl),
      // Single sign-on admits only existing, active accounts (matched by email).
      signIn: async ({ user, account }) => {
        if (account?.provider !== "oidc") return true;
        if (!user.email) return false;
        const found = await findUserWithPassword(await getDb(), user.email);
        return found?.user.status === "active";
      },
      jwt: async ({ token, user, account }) => {
        if (user && account?.provider === "oidc" && user.email) {
          const found = await findUserWithPassword(await getDb(), user.email);
          if (found) {
            token.uid = found.user.id;
            token.sv = found.user.sessionVersion;
            token.sid = newSessionId();
          }
        } else if (user) {
          const signedIn = user as { id: string; sv?: number };
          token.uid = signedIn.id;
          token.sv = signedIn.sv ?? 0;
          token.sid = newSessionId();
        }
        return token;
      },
      session: async ({ session, token }) => ({
        ...session,
        uid: typeof token.uid === "string" ? token.uid : null,
        sv: typeof token.sv === "number" ? token.sv : -1,
        sid: typeof token.sid === "string" ? token.sid : null,
      }),
    },
    events: {
      // POST /api/auth/signout: the cookie is cleared in this browser, and its id revoked for
      // any copy of it elsewhere until it would have expired.
      signOut: async ({ token }) => {
        const sid = typeof token?.sid === "string" ? token.sid : null;
        if (!sid) return;
        const expiresAt = typeof token.exp === "number" ? new Date(token.exp * 1000) : new Date(Date.now() + SESSION_MAX_AGE_S * 1000);
        await revokeSession(await getDb(), sid, expiresAt);
      },
    },
  };
  return cached;
};
