import type { Metadata, Viewport } from "next";
import localFont from "next/font/local";
import Link from "next/link";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { HeaderAccount } from "@/components/auth/header-account";
import "./globals.css";

// Self-hosted Inter (the build machine is offline, so no next/font/google).
const inter = localFont({
  src: "../node_modules/@fontsource-variable/inter/files/inter-latin-wght-normal.woff2",
  weight: "100 900",
  style: "normal",
  variable: "--font-inter",
  display: "swap",
});

const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4f46e5"/>' +
  '<circle cx="14" cy="14" r="7" fill="none" stroke="#fff" stroke-width="3"/>' +
  '<path d="m19.5 19.5 5 5" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>';

export const metadata: Metadata = {
  title: { default: "Social Lookup", template: "%s · Social Lookup" },
  description:
    "Self-hostable data-lookup API and analyst console: event details, follower lists and publication lists behind one JSON envelope.",
  applicationName: "Social Lookup",
  // Inline icon: no extra request, and no 404 for /favicon.ico in the console.
  icons: { icon: `data:image/svg+xml,${encodeURIComponent(faviconSvg)}` },
};

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f9fafb" },
    { media: "(prefers-color-scheme: dark)", color: "#0b0f19" },
  ],
};

const navLinkClass =
  "rounded-md px-2.5 py-1.5 text-sm font-medium whitespace-nowrap text-muted transition-colors hover:bg-surface-muted hover:text-foreground";

function SiteHeader() {
  return (
    <header className="sticky top-0 z-40 border-b border-border bg-background/85 backdrop-blur supports-[backdrop-filter]:bg-background/70">
      <div className="mx-auto flex h-14 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded-md font-semibold tracking-tight text-foreground">
          <LogoMark />
          <span className="whitespace-nowrap">Social Lookup</span>
        </Link>
        <nav aria-label="Main">
          <ul className="flex items-center gap-1">
            <li>
              <Link href="/api-docs" className={navLinkClass}>
                API reference
              </Link>
            </li>
            <HeaderAccount />
          </ul>
        </nav>
      </div>
    </header>
  );
}

function LogoMark() {
  return (
    <span
      aria-hidden="true"
      className="grid size-7 place-items-center rounded-lg bg-accent text-accent-foreground shadow-sm"
    >
      <svg viewBox="0 0 20 20" fill="none" className="size-4" stroke="currentColor" strokeWidth="2.2">
        <circle cx="8.5" cy="8.5" r="5" />
        <path d="m12.5 12.5 4.5 4.5" strokeLinecap="round" />
      </svg>
    </span>
  );
}

function SiteFooter() {
  return (
    <footer className="border-t border-border">
      <div className="mx-auto flex max-w-6xl flex-col gap-3 px-4 py-8 text-sm text-muted sm:flex-row sm:items-center sm:justify-between sm:px-6">
        <p>Social Lookup · self-hosted lookup API, v1</p>
        <nav aria-label="Footer">
          <ul className="flex flex-wrap gap-x-5 gap-y-2">
            <li>
              <Link href="/api-docs" className="hover:text-foreground">
                API reference
              </Link>
            </li>
            <li>
              <a href="/v1/openapi.json" className="hover:text-foreground">
                OpenAPI document
              </a>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}

/**
 * Every page is rendered for its request, never prerendered: Next puts the request's script nonce
 * (lib/http/security-headers.ts) on the scripts of pages it renders, and a prerendered page's
 * scripts would carry none and be refused by the browser. The console pages read the session
 * anyway; this holds the few that do not (the 404 page) to the same rule.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en" className={inter.variable}>
      <body className="flex min-h-dvh flex-col font-sans">
        <a
          href="#main"
          className="sr-only rounded-md bg-accent px-3 py-2 text-sm font-medium text-accent-foreground focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50"
        >
          Skip to content
        </a>
        <SiteHeader />
        <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
          {children}
        </main>
        <SiteFooter />
      </body>
    </html>
  );
}
