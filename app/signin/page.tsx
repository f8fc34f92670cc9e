import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { Card, CardContent } from "@/components/ui/card";
import { safeCallbackUrl } from "@/lib/auth/callback-url";
import { currentUser } from "@/lib/auth/session";
import { env } from "@/lib/env";

export const metadata: Metadata = {
  title: "Sign in",
  robots: { index: false },
};

type SearchParams = Record<string, string | string[] | undefined>;

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * next-auth sends errors of redirect-based sign-in (single sign-on) here as `?error=<code>`.
 * Only known codes are shown: the URL is attacker-controllable, its text is never displayed.
 */
const errorMessages: Record<string, string> = {
  AccessDenied: "This account cannot sign in with single sign-on. Ask an administrator to check that it exists and is active.",
  OAuthSignin: "Single sign-on could not start. Try again.",
  OAuthCallback: "Single sign-on did not complete. Try again.",
  OAuthAccountNotLinked: "This single sign-on identity is not linked to an account.",
  Callback: "Sign-in did not complete. Try again.",
  SessionRequired: "Sign in to continue.",
  Configuration: "Sign-in is not configured correctly. Ask an administrator.",
};

const notices: Record<string, string> = {
  "signed-out-everywhere": "You were signed out on every device.",
  "password-changed": "Your password was changed. Sign in with the new one.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(first(params.callbackUrl));
  if (await currentUser()) redirect(callbackUrl);

  const errorCode = first(params.error);
  const initialError = errorCode ? (errorMessages[errorCode] ?? "Sign-in did not complete. Try again.") : undefined;
  const notice = notices[first(params.notice) ?? ""];

  return (
    <div className="mx-auto flex w-full max-w-md flex-col gap-6 px-4 py-12 sm:py-20">
      <div className="flex flex-col items-center gap-3 text-center">
        <span aria-hidden="true" className="grid size-11 place-items-center rounded-xl bg-accent text-accent-foreground shadow-sm">
          <svg viewBox="0 0 20 20" fill="none" className="size-6" stroke="currentColor" strokeWidth="2.2">
            <circle cx="8.5" cy="8.5" r="5" />
            <path d="m12.5 12.5 4.5 4.5" strokeLinecap="round" />
          </svg>
        </span>
        <h1 className="text-2xl font-semibold tracking-tight">Sign in to Social Lookup</h1>
        <p className="text-sm text-muted">Use the account an administrator created for you.</p>
      </div>
      {notice ? (
        <p role="status" className="rounded-lg border border-success/30 bg-success-soft px-3 py-2.5 text-sm font-medium text-success">
          {notice}
        </p>
      ) : null}
      <Card>
        <CardContent>
          <SignInForm callbackUrl={callbackUrl} oidcEnabled={env().oidc !== null} initialError={initialError} />
        </CardContent>
      </Card>
      <p className="text-center text-xs text-muted">
        No account yet? Ask an administrator of this instance to create one.
      </p>
    </div>
  );
}
