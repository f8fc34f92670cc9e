"use client";

import { signIn } from "next-auth/react";
import { useEffect, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { Input } from "@/components/ui/input";
import { safeCallbackUrl } from "@/lib/auth/callback-url";

export type SignInFormProps = {
  /** Already checked on the server; checked again here before navigating. */
  callbackUrl: string;
  oidcEnabled: boolean;
  /** A message for an error that brought the user here (e.g. single sign-on was refused). */
  initialError?: string;
};

// next-auth's own error codes; our Credentials provider throws readable sentences instead.
const nextAuthMessages: Record<string, string> = {
  CredentialsSignin: "Invalid email or password.",
  Configuration: "Sign-in is not configured correctly. Ask an administrator.",
  AccessDenied: "This account cannot sign in. Ask an administrator to check it.",
};

const UNAVAILABLE = "Sign-in is unavailable right now. Check your connection and try again.";

type FieldErrors = { email?: string; password?: string };

export function SignInForm({ callbackUrl, oidcEnabled, initialError }: SignInFormProps) {
  const [pending, setPending] = useState<"credentials" | "oidc" | null>(null);
  // Until the page is interactive a submit would be a plain form post: keep the buttons off.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  const [error, setError] = useState<string | undefined>(initialError);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const destination = safeCallbackUrl(callbackUrl);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    const missing: FieldErrors = {
      email: email ? undefined : "Enter your email address.",
      password: password ? undefined : "Enter your password.",
    };
    setFieldErrors(missing);
    if (missing.email || missing.password) {
      setError(undefined);
      return;
    }
    setPending("credentials");
    setError(undefined);
    try {
      const result = await signIn("credentials", { redirect: false, email, password, callbackUrl: destination });
      if (result?.ok && !result.error) {
        // A full load: the header, the console layout and every server component see the new cookie.
        window.location.assign(destination);
        return;
      }
      const code = result?.error ?? "";
      setError(nextAuthMessages[code] ?? (code || UNAVAILABLE));
    } catch {
      setError(UNAVAILABLE);
    }
    setPending(null);
    const passwordInput = formElement.elements.namedItem("password");
    if (passwordInput instanceof HTMLInputElement) {
      passwordInput.value = "";
      passwordInput.focus();
    }
  };

  const onSingleSignOn = async () => {
    setPending("oidc");
    setError(undefined);
    try {
      await signIn("oidc", { callbackUrl: destination });
    } catch {
      setError(UNAVAILABLE);
      setPending(null);
    }
  };

  return (
    <div className="flex flex-col gap-5">
      <div role="alert" aria-live="assertive" className="empty:hidden">
        {error ? (
          <p className="flex gap-2 rounded-lg border border-danger/30 bg-danger-soft px-3 py-2.5 text-sm font-medium text-danger">
            <Icon name="errorCircle" className="mt-0.5 size-4 shrink-0" />
            <span>{error}</span>
          </p>
        ) : null}
      </div>

      <form method="post" noValidate onSubmit={onSubmit} className="flex flex-col gap-4" aria-busy={pending === "credentials" || undefined}>
        <Input
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          inputMode="email"
          spellCheck={false}
          required
          error={fieldErrors.email}
          readOnly={pending !== null}
        />
        <Input
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={fieldErrors.password}
          readOnly={pending !== null}
        />
        <Button type="submit" size="lg" className="mt-1 w-full" disabled={!ready || pending !== null}>
          {pending === "credentials" ? "Signing in…" : "Sign in"}
        </Button>
      </form>

      {oidcEnabled ? (
        <>
          <div className="flex items-center gap-3 text-xs font-medium tracking-wide text-muted uppercase" aria-hidden="true">
            <span className="h-px flex-1 bg-border" />
            or
            <span className="h-px flex-1 bg-border" />
          </div>
          <Button variant="secondary" size="lg" className="w-full" onClick={onSingleSignOn} disabled={!ready || pending !== null}>
            {pending === "oidc" ? "Redirecting…" : "Sign in with single sign-on"}
          </Button>
        </>
      ) : null}
    </div>
  );
}
