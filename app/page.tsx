import type { Metadata } from "next";
import Link from "next/link";
import { requestOrigin } from "@/lib/http/request-origin";
import { registry } from "@/lib/operations";
import { followers } from "@/lib/operations/followers";
import { Badge } from "@/components/ui/badge";
import { buttonStyles } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardTitle } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { YourDataPointer } from "@/components/your-data/your-data-pointer";

export const metadata: Metadata = {
  title: { absolute: "Social Lookup · Event, follower and publication lookups" },
};

/** The first call, against the address this page was reached at (as the API reference's base URL). */
const quickStart = (origin: string) => `curl -H "Authorization: Bearer $KEY" "${origin}${followers.path}?userid=2000000002"`;

const successEnvelope = `{
  "code": 0,
  "message": "success",
  "data": { "followers": [ … ], "page_info": { … } },
  "requestId": "5f0c…-4e1b"
}`;

const errorEnvelope = `{
  "code": 402,
  "message": "apiKey quota is not enough",
  "data": null,
  "requestId": "9a7d…-c2f0"
}`;

const creditLabel = (costCredits: number) => `${costCredits} ${costCredits === 1 ? "credit" : "credits"}`;

/** "4, 4, 2 or 1". */
const listWithOr = (items: readonly string[]): string =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1) ?? ""}`;

const countWords = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"];

const principles = [
  {
    title: "Bearer keys",
    body: "Each key is a signed token with its own credit quota and per-second limit. Revoke it and the next request fails, on every instance.",
    icon: "M15.75 5.25a3 3 0 0 1 3 3m3 0a6 6 0 0 1-7.03 5.91c-.56-.1-1.16.03-1.56.43l-2.66 2.66H8.25v2.25H6v2.25H2.25v-2.82c0-.6.24-1.17.66-1.59l6.5-6.5c.4-.4.53-1 .43-1.56a6 6 0 1 1 11.91-1.03Z",
  },
  {
    title: "Credits only for answers",
    body: `A lookup costs ${listWithOr(registry.map((operation) => String(operation.costCredits)))} credits and is charged only when it returns 200. Errors, rate-limited and failed calls are free.`,
    icon: "M12 6v12m-3-2.8.9.6c1.2.9 3 .9 4.2 0 1.2-.9 1.2-2.3 0-3.2-.6-.4-1.4-.7-2.1-.7-.7 0-1.4-.2-1.9-.6-1.1-.8-1.1-2.1 0-2.9 1.1-.8 2.9-.8 4 0l.4.3M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0Z",
  },
  {
    title: "One JSON envelope",
    body: "Success or failure, every response is {code, message, data, requestId}; the HTTP status equals the code on errors.",
    icon: "M17.25 6.75 22.5 12l-5.25 5.25m-10.5 0L1.5 12l5.25-5.25m7.5-3-4.5 16.5",
  },
] as const;

function Icon({ path }: { path: string }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      className="size-5"
    >
      <path d={path} />
    </svg>
  );
}

export default async function HomePage() {
  const origin = await requestOrigin();
  return (
    <>
      <section aria-labelledby="hero-heading" className="relative overflow-hidden border-b border-border">
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-x-0 -top-40 -z-10 mx-auto h-96 max-w-3xl rounded-full bg-accent/15 blur-3xl"
        />
        <div className="mx-auto grid max-w-6xl items-center gap-12 px-4 py-16 sm:px-6 sm:py-24 lg:grid-cols-[1.05fr_1fr]">
          <div className="flex min-w-0 flex-col items-start gap-6">
            <Badge variant="accent">Lookup API v1 · self-hosted</Badge>
            <h1
              id="hero-heading"
              className="text-4xl font-semibold tracking-tight text-balance text-foreground sm:text-5xl"
            >
              Public social records, one authenticated GET away.
            </h1>
            <p className="max-w-xl text-lg text-pretty text-muted">
              Social Lookup serves event details, follower lists and publication lists as clean JSON, for
              developers calling the API and for analysts working in the console. Run it on your own
              infrastructure, issue keys, and meter every call in credits.
            </p>
            <div className="flex flex-wrap gap-3">
              <Link href="/api-docs" className={buttonStyles({ size: "lg" })}>
                API reference
              </Link>
              <a href="/v1/openapi.json" className={buttonStyles({ variant: "secondary", size: "lg" })}>
                OpenAPI document
                <span className="font-mono text-xs text-muted">/v1/openapi.json</span>
              </a>
            </div>
          </div>

          <div className="flex min-w-0 flex-col gap-3">
            <h2 className="text-sm font-semibold text-foreground">Quick start</h2>
            <p className="text-sm text-muted">
              Put your key in <code className="font-mono text-foreground">$KEY</code> and ask for the first
              page of a user&apos;s followers:
            </p>
            <CodeBlock title="Terminal" code={quickStart(origin)} wrap />
            <CodeBlock title="Response" code={successEnvelope} />
          </div>
        </div>
      </section>

      <section aria-labelledby="lookups-heading" className="mx-auto max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
        <div className="flex max-w-2xl flex-col gap-3">
          <h2 id="lookups-heading" className="text-2xl font-semibold tracking-tight sm:text-3xl">
            {countWords[registry.length] ?? registry.length} lookups, priced per request
          </h2>
          <p className="text-muted">
            All operations are read-only <code className="font-mono text-sm text-foreground">GET</code>{" "}
            requests with parameters in the query string.
          </p>
        </div>
        <ul className="mt-10 grid gap-4 sm:grid-cols-2">
          {registry.map((operation) => {
            const details = operation.label;
            return (
              <li key={operation.id} className="flex">
                <Card className="flex w-full flex-col">
                  <CardContent className="flex flex-1 flex-col gap-4">
                    <div className="flex items-start justify-between gap-3">
                      <div className="flex flex-col gap-1">
                        <p className="text-xs font-medium tracking-wide text-muted uppercase">{details.site}</p>
                        <CardTitle>{details.short}</CardTitle>
                      </div>
                      <Badge variant={operation.costCredits >= 4 ? "warning" : "success"} className="shrink-0">
                        {creditLabel(operation.costCredits)}
                      </Badge>
                    </div>
                    <p className="flex min-w-0 items-center gap-2 rounded-lg bg-surface-muted px-3 py-2 font-mono text-[13px]">
                      <span className="font-semibold text-success">GET</span>
                      <span className="truncate">{operation.path}</span>
                    </p>
                    <CardDescription className="mt-auto">Looked up by: {details.lookedUpBy}</CardDescription>
                  </CardContent>
                </Card>
              </li>
            );
          })}
        </ul>
      </section>

      <section aria-labelledby="principles-heading" className="border-y border-border bg-surface-muted/50">
        <div className="mx-auto grid max-w-6xl gap-12 px-4 py-16 sm:px-6 sm:py-20 lg:grid-cols-2">
          <div className="flex min-w-0 flex-col gap-8">
            <h2 id="principles-heading" className="text-2xl font-semibold tracking-tight sm:text-3xl">
              Predictable by design
            </h2>
            <ul className="flex flex-col gap-6">
              {principles.map((principle) => (
                <li key={principle.title} className="flex gap-4">
                  <span className="grid size-10 shrink-0 place-items-center rounded-lg bg-accent-soft text-accent-soft-foreground">
                    <Icon path={principle.icon} />
                  </span>
                  <div className="flex flex-col gap-1">
                    <h3 className="font-semibold">{principle.title}</h3>
                    <p className="text-sm text-muted">{principle.body}</p>
                  </div>
                </li>
              ))}
            </ul>
          </div>
          <div className="flex min-w-0 flex-col gap-3 lg:pt-16">
            <p className="text-sm text-muted">
              A failure keeps the same shape, with <code className="font-mono text-foreground">data: null</code>:
            </p>
            <CodeBlock title="402 Payment Required" code={errorEnvelope} />
          </div>
        </div>
      </section>

      <section aria-labelledby="audiences-heading" className="mx-auto max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
        <h2 id="audiences-heading" className="sr-only">
          Who it is for
        </h2>
        <div className="grid gap-4 md:grid-cols-2">
          <Card>
            <CardContent className="flex h-full flex-col items-start gap-3">
              <CardTitle>For developers</CardTitle>
              <CardDescription>
                Every operation, parameter, error message and credit cost is in the reference, generated from the
                same OpenAPI 3.1 document your client generator can read.
              </CardDescription>
              <div className="mt-auto flex flex-wrap gap-2 pt-2">
                <Link href="/api-docs" className={buttonStyles({ variant: "secondary", size: "sm" })}>
                  Read the API reference
                </Link>
                <a href="/v1/openapi.json" className={buttonStyles({ variant: "ghost", size: "sm" })}>
                  Download openapi.json
                </a>
              </div>
            </CardContent>
          </Card>
          <Card>
            <CardContent className="flex h-full flex-col items-start gap-3">
              <CardTitle>For analysts</CardTitle>
              <CardDescription>
                Sign in to the console to manage keys, watch remaining credits and usage, and run lookups without
                writing a line of code.
              </CardDescription>
              <div className="mt-auto pt-2">
                <Link href="/signin" prefetch={false} className={buttonStyles({ variant: "secondary", size: "sm" })}>
                  Sign in to the console
                </Link>
              </div>
            </CardContent>
          </Card>
        </div>
      </section>

      <YourDataPointer />
    </>
  );
}
