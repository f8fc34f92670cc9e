import type { Metadata } from "next";
import { Fragment, type ReactNode } from "react";
import { requestOrigin } from "@/lib/http/request-origin";
import { OPENAPI_PATH, buildOpenApiDocument } from "@/lib/openapi/document";
import { operationDocs, type OperationDoc } from "@/lib/openapi/docs";
import { ACCOUNT_PATH } from "@/lib/openapi/meta-operations";
import { jsonMedia } from "@/lib/openapi/responses";
import { eventDetailsIdOperation } from "@/lib/operations/event-details-id/descriptor";
import type { BodilessResponseObject, JsonValue, OpenApiDocument, ResponseObject } from "@/lib/openapi/types";
import { AccountSection } from "@/components/api-docs/account-section";
import { AgentsSection } from "@/components/api-docs/agents-section";
import { BatchesSection } from "@/components/api-docs/batches-section";
import { ReferenceTable } from "@/components/api-docs/reference-table";
import { TryIt } from "@/components/api-docs/try-it";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Card, CardContent } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";

export const metadata: Metadata = {
  title: "API reference",
  description: "Operations, parameters, credit costs, responses and error messages of the Social Lookup API v1.",
};

const statusText: Record<string, string> = {
  "200": "OK",
  "400": "Bad Request",
  "401": "Unauthorized",
  "402": "Payment Required",
  "404": "Not Found",
  "429": "Too Many Requests",
  "500": "Internal Server Error",
};

const statusVariant = (status: string): BadgeVariant =>
  status.startsWith("2") ? "success" : status.startsWith("5") ? "danger" : "warning";

/** How many lookups the registry serves, as the opening sentence says it. */
const COUNT_WORDS = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve"];
const countInWords = (count: number): string => COUNT_WORDS[count] ?? String(count);

const creditLabel = (costCredits: number) => `${costCredits} ${costCredits === 1 ? "credit" : "credits"}`;

const isObject = (value: JsonValue | undefined): value is { [key: string]: JsonValue } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The envelope messages a response can carry, read from its examples. */
const responseMessages = (response: ResponseObject | BodilessResponseObject): string[] =>
  Object.values(jsonMedia(response)?.examples ?? {}).flatMap((example) =>
    isObject(example.value) && typeof example.value.message === "string" ? [example.value.message] : [],
  );

const successExample = (response: ResponseObject | BodilessResponseObject | undefined): string | undefined => {
  const example = Object.values(jsonMedia(response)?.examples ?? {})[0];
  return example ? JSON.stringify(example.value, null, 2) : undefined;
};

/** Descriptions mark literals with backticks; show those as code. */
function RichText({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, index) =>
        index % 2 === 1 ? (
          <code key={index} className="rounded bg-surface-muted px-1 py-0.5 font-mono text-[0.85em] text-foreground">
            {part}
          </code>
        ) : (
          <Fragment key={index}>{part}</Fragment>
        ),
      )}
    </>
  );
}

function SectionHeading({ id, children }: { id: string; children: ReactNode }) {
  return (
    <h2 id={id} className="scroll-mt-20 text-xl font-semibold tracking-tight sm:text-2xl">
      {children}
    </h2>
  );
}

function SubHeading({ children }: { children: ReactNode }) {
  return <h3 className="text-sm font-semibold tracking-wide text-muted uppercase">{children}</h3>;
}

/** The OpenAPI document this page is generated from, linked by its path. */
function OpenApiLink() {
  return (
    <a href={OPENAPI_PATH} className="font-medium text-accent underline-offset-4 hover:underline">
      {OPENAPI_PATH}
    </a>
  );
}

function TableOfContents({ operations }: { operations: OperationDoc[] }) {
  const entries = [
    { id: "basics", label: "Basics" },
    { id: "headers", label: "Response headers" },
    ...operations.map((operation) => ({ id: operation.name, label: operation.summary })),
    { id: "account", label: "Account balance" },
    { id: "batches", label: "Batches" },
    { id: "agents", label: "Agents (MCP)" },
  ];
  return (
    <nav aria-label="On this page" className="@5xl:sticky @5xl:top-20">
      <p className="px-2 text-xs font-semibold tracking-wide text-muted uppercase">On this page</p>
      <ul className="mt-2 grid grid-cols-1 gap-0.5 @xl:grid-cols-2 @3xl:grid-cols-3 @5xl:grid-cols-1">
        {entries.map((entry) => (
          <li key={entry.id}>
            <a
              href={`#${entry.id}`}
              className="block rounded-md px-2 py-1 text-sm text-muted transition-colors hover:bg-surface-muted hover:text-foreground"
            >
              {entry.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function BasicsSection({ document, origin }: { document: OpenApiDocument; origin: string }) {
  const bearer = document.components.securitySchemes.bearerAuth;
  const paragraphs = document.info.description.split("\n\n");
  return (
    <section aria-labelledby="basics" className="flex flex-col gap-4">
      <SectionHeading id="basics">Basics</SectionHeading>
      <Card>
        <CardContent className="flex flex-col gap-4 text-sm leading-relaxed">
          <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-[10rem_1fr]">
            <dt className="font-medium text-foreground">Base URL</dt>
            <dd className="font-mono text-[13px] break-all text-muted">{origin}</dd>
            <dt className="font-medium text-foreground">Authentication</dt>
            <dd className="text-muted">
              <code className="font-mono text-[13px] text-foreground">Authorization: Bearer &lt;API_KEY&gt;</code>
              {bearer ? (
                <span className="block">
                  HTTP {bearer.scheme} scheme, key format {bearer.bearerFormat}. Keys are issued in the console.
                </span>
              ) : null}
            </dd>
            <dt className="font-medium text-foreground">Version</dt>
            <dd className="text-muted">
              {document.info.version} (OpenAPI {document.openapi}) ·{" "}
              <OpenApiLink />
            </dd>
          </dl>
          <div className="flex flex-col gap-3 border-t border-border pt-4 text-muted">
            {paragraphs.map((paragraph) => (
              <p key={paragraph}>
                <RichText text={paragraph} />
              </p>
            ))}
          </div>
        </CardContent>
      </Card>
    </section>
  );
}

function HeadersSection({ document }: { document: OpenApiDocument }) {
  return (
    <section aria-labelledby="headers" className="flex flex-col gap-4">
      <SectionHeading id="headers">Response headers</SectionHeading>
      <ReferenceTable
        caption="Response headers"
        rows={Object.entries(document.components.headers)}
        rowKey={([name]) => name}
        columns={[
          { label: "Header", className: "font-mono text-[13px] whitespace-nowrap", cell: ([name]) => name },
          { label: "Meaning", className: "text-muted", cell: ([, header]) => header.description },
        ]}
      />
    </section>
  );
}

function OperationSection({
  operation,
  document,
  origin,
}: {
  operation: OperationDoc;
  document: OpenApiDocument;
  origin: string;
}) {
  const responses = document.paths[operation.path]?.get?.responses ?? {};
  const example200 = successExample(responses["200"]);
  return (
    <section aria-labelledby={operation.name} className="flex flex-col gap-5 border-t border-border pt-10">
      <div className="flex flex-col gap-3">
        <SectionHeading id={operation.name}>{operation.summary}</SectionHeading>
        <div className="flex flex-wrap items-center gap-2">
          <p className="flex min-w-0 items-center gap-2 rounded-lg border border-border bg-surface px-3 py-1.5 font-mono text-[13px]">
            <span className="font-semibold text-success">GET</span>
            <span className="break-all">{operation.path}</span>
          </p>
          <Badge variant={operation.costCredits >= 4 ? "warning" : "success"}>
            Cost: {creditLabel(operation.costCredits)}
          </Badge>
        </div>
        {operation.description ? (
          <p className="max-w-3xl text-sm leading-relaxed text-muted">
            <RichText text={operation.description} />
          </p>
        ) : null}
        <p className="text-sm text-muted">Charged only when the answer is 200; every error costs nothing.</p>
      </div>

      <div className="flex flex-col gap-3">
        <SubHeading>Query parameters</SubHeading>
        <ReferenceTable
          caption={`Query parameters of ${operation.path}`}
          rows={operation.parameters}
          rowKey={(parameter) => parameter.name}
          columns={[
            {
              label: "Name",
              className: "whitespace-nowrap",
              cell: (parameter) => (
                <>
                  <span className="font-mono text-[13px] font-semibold">{parameter.name}</span>
                  <Badge variant={parameter.required ? "accent" : "neutral"} className="ml-2">
                    {parameter.required ? "required" : "optional"}
                  </Badge>
                </>
              ),
            },
            { label: "Description", className: "min-w-56 text-muted", cell: (parameter) => parameter.description },
            { label: "Example", className: "min-w-40 font-mono text-[13px] break-all", cell: (parameter) => parameter.example },
          ]}
        />
      </div>

      <div className="flex flex-col gap-3">
        <SubHeading>Responses</SubHeading>
        <ReferenceTable
          caption={`Responses of ${operation.path}`}
          rows={Object.entries(responses)}
          rowKey={([status]) => status}
          columns={[
            {
              label: "Status",
              className: "whitespace-nowrap",
              cell: ([status]) => (
                <>
                  <Badge variant={statusVariant(status)} className="font-mono">
                    {status}
                  </Badge>
                  <span className="ml-2 text-xs text-muted">{statusText[status]}</span>
                </>
              ),
            },
            {
              label: "Message",
              className: "min-w-52",
              cell: ([, response]) => (
                <ul className="flex flex-col gap-1">
                  {responseMessages(response).map((message) => (
                    <li key={message} className="font-mono text-[13px]">
                      {message}
                    </li>
                  ))}
                </ul>
              ),
            },
            { label: "When", className: "min-w-56 text-muted", cell: ([, response]) => <RichText text={response.description} /> },
          ]}
        />
      </div>

      <div className="flex flex-col gap-3">
        <SubHeading>Try it</SubHeading>
        <TryIt operation={operation} baseUrl={origin} />
        {example200 ? (
          <details className="group rounded-xl border border-border bg-surface">
            <summary className="cursor-pointer list-none rounded-xl px-4 py-3 text-sm font-medium select-none hover:bg-surface-muted [&::-webkit-details-marker]:hidden">
              <span aria-hidden="true" className="mr-2 inline-block transition-transform group-open:rotate-90">
                ›
              </span>
              Example 200 response
            </summary>
            <div className="p-3 pt-0">
              <CodeBlock title="200 response body" code={example200} />
            </div>
          </details>
        ) : null}
      </div>
    </section>
  );
}

export default async function ApiDocsPage() {
  const document = buildOpenApiDocument();
  const operations = operationDocs();
  const origin = await requestOrigin();

  return (
    // Sized by the room it has, not the window's: inside the console (its sidebar beside it) the
    // contents list goes above the reference, so the try-it forms keep their width.
    <div className="@container mx-auto max-w-6xl px-4 py-12 sm:px-6 sm:py-16">
      <header className="flex max-w-3xl flex-col gap-4">
        <div className="flex flex-wrap gap-2">
          <Badge variant="accent">v{document.info.version}</Badge>
          <Badge>OpenAPI {document.openapi}</Badge>
        </div>
        <h1 className="text-3xl font-semibold tracking-tight sm:text-4xl">API reference</h1>
        <p className="text-lg text-pretty text-muted">
          {`${countInWords(operations.length)} read-only lookups over HTTP GET, authenticated with a Bearer key and metered in credits. ` +
            "This page is generated from the same OpenAPI document the API serves at"}{" "}
          <OpenApiLink />
          .
        </p>
      </header>

      <div className="mt-12 grid gap-10 @5xl:grid-cols-[14rem_minmax(0,1fr)]">
        <aside>
          <TableOfContents operations={operations} />
        </aside>
        <div className="flex min-w-0 flex-col gap-12">
          <BasicsSection document={document} origin={origin} />
          <HeadersSection document={document} />
          {operations.map((operation) => (
            <OperationSection key={operation.name} operation={operation} document={document} origin={origin} />
          ))}
          <AccountSection
            path={ACCOUNT_PATH}
            summary="Account balance"
            description={<RichText text={document.paths[ACCOUNT_PATH]?.get?.description ?? ""} />}
            origin={origin}
            heading={(id, text) => <SectionHeading id={id}>{text}</SectionHeading>}
          />
          <BatchesSection
            call={{ baseUrl: origin, operation: eventDetailsIdOperation.id, inputs: ["1000000000000001", "1000000000000002"] }}
            description={<RichText text={document.paths["/v1/batches"]?.post?.description ?? ""} />}
            heading={(id, text) => <SectionHeading id={id}>{text}</SectionHeading>}
          />
          <AgentsSection
            origin={origin}
            tools={[
              ...operations.map((operation) => ({ name: operation.name, summary: operation.summary, costCredits: operation.costCredits })),
              { name: "account_balance", summary: "Account balance", costCredits: 0 },
            ]}
            heading={(id, text) => <SectionHeading id={id}>{text}</SectionHeading>}
          />
        </div>
      </div>
    </div>
  );
}
