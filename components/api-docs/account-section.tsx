import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { ACCOUNT_CLIENT_NAMES } from "@/lib/snippets/clients";
import { SnippetTabs } from "./snippet-tabs";

/**
 * GET /v1/account on the API page: what it answers and the same snippets as a lookup, so a
 * script can check a key's balance before it spends. It has no parameters and costs nothing, so
 * there is no try-it form.
 */
export function AccountSection({
  path,
  summary,
  description,
  origin,
  heading,
}: {
  path: string;
  summary: string;
  description: ReactNode;
  origin: string;
  heading: (id: string, text: string) => ReactNode;
}) {
  return (
    <section aria-labelledby="account" className="flex flex-col gap-5 border-t border-border pt-10">
      <div className="flex flex-col gap-3">
        {heading("account", summary)}
        <div className="flex flex-wrap items-center gap-2">
          <p className="flex min-w-0 items-center gap-2 rounded-lg border border-border bg-surface px-3 py-1.5 font-mono text-[13px]">
            <span className="font-semibold text-success">GET</span>
            <span className="break-all">{path}</span>
          </p>
          <Badge variant="success">Free</Badge>
        </div>
        <p className="max-w-3xl text-sm leading-relaxed text-muted">{description}</p>
      </div>
      <SnippetTabs call={{ baseUrl: origin, path, params: [] }} operationName="account" client={ACCOUNT_CLIENT_NAMES} />
    </section>
  );
}
