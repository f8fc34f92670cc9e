import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { CodeBlock } from "@/components/ui/code-block";
import { batchCurlSnippet, batchFetchSnippet, batchPythonSnippet, type BatchCall } from "@/lib/snippets/batch";

/**
 * /v1/batches on the API page: what a batch is for, and a script that starts one, waits for it and
 * downloads its results, in the page's three languages.
 */
export function BatchesSection({
  call,
  description,
  heading,
}: {
  call: BatchCall;
  description: ReactNode;
  heading: (id: string, text: string) => ReactNode;
}) {
  return (
    <section aria-labelledby="batches" className="flex flex-col gap-5 border-t border-border pt-10" data-testid="batches-section">
      <div className="flex flex-col gap-3">
        {heading("batches", "Batches")}
        <div className="flex flex-wrap items-center gap-2">
          <p className="flex min-w-0 items-center gap-2 rounded-lg border border-border bg-surface px-3 py-1.5 font-mono text-[13px]">
            <span className="font-semibold text-success">POST</span>
            <span className="break-all">/v1/batches</span>
          </p>
          <Badge variant="success">Lookups charged as usual</Badge>
        </div>
        <p className="max-w-3xl text-sm leading-relaxed text-muted">{description}</p>
      </div>
      <CodeBlock title="curl (shell)" code={batchCurlSnippet(call)} wrap />
      <CodeBlock title="JavaScript fetch" code={batchFetchSnippet(call)} />
      <CodeBlock title="Python (standard library)" code={batchPythonSnippet(call)} />
    </section>
  );
}
