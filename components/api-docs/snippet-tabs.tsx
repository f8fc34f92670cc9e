"use client";

import { useId, useRef, useState, type KeyboardEvent } from "react";
import { cx } from "@/components/ui/class-names";
import { CodeBlock } from "@/components/ui/code-block";
import { curlSnippet, fetchSnippet, pythonClientSnippet, pythonSnippet, sdkSnippet, type ApiCall, type ClientNames } from "@/lib/snippets/snippets";

/**
 * curl / JavaScript fetch / Python (standard library) / the TypeScript SDK / the Python client for
 * the form's current call, as WAI-ARIA tabs (arrow keys, Home and End move between tabs). Every
 * panel stays in the DOM, hidden when not selected, so each can be found and copied by its test id.
 */
const languages = [
  { id: "curl", label: "curl", title: "curl (shell)", make: (call: ApiCall) => curlSnippet(call), wrap: true },
  { id: "fetch", label: "JavaScript", title: "JavaScript fetch", make: (call: ApiCall) => fetchSnippet(call), wrap: false },
  { id: "python", label: "Python", title: "Python (standard library)", make: (call: ApiCall) => pythonSnippet(call), wrap: false },
  { id: "sdk", label: "TypeScript SDK", title: "@social-lookup/client (Node.js 22+)", make: sdkSnippet, wrap: false },
  { id: "python-client", label: "Python client", title: "social_lookup (Python 3.10+)", make: pythonClientSnippet, wrap: false },
] as const;

type LanguageId = (typeof languages)[number]["id"];

export function SnippetTabs({ call, operationName, client }: { call: ApiCall; operationName: string; client: ClientNames }) {
  const [selected, setSelected] = useState<LanguageId>("curl");
  const baseId = useId();
  const tabRefs = useRef<Partial<Record<LanguageId, HTMLButtonElement | null>>>({});

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = languages.findIndex((language) => language.id === selected);
    const last = languages.length - 1;
    const target =
      event.key === "ArrowRight" ? (index === last ? 0 : index + 1)
      : event.key === "ArrowLeft" ? (index === 0 ? last : index - 1)
      : event.key === "Home" ? 0
      : event.key === "End" ? last
      : null;
    const language = target === null ? undefined : languages[target];
    if (!language) return;
    event.preventDefault();
    setSelected(language.id);
    tabRefs.current[language.id]?.focus();
  };

  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div
        role="tablist"
        aria-label="Code for this call"
        onKeyDown={onKeyDown}
        className="inline-flex w-fit max-w-full gap-1 overflow-x-auto rounded-lg border border-border bg-surface-muted p-1"
      >
        {languages.map((language) => {
          const isSelected = language.id === selected;
          return (
            <button
              key={language.id}
              ref={(element) => {
                tabRefs.current[language.id] = element;
              }}
              type="button"
              role="tab"
              id={`${baseId}-tab-${language.id}`}
              aria-selected={isSelected}
              aria-controls={`${baseId}-panel-${language.id}`}
              tabIndex={isSelected ? 0 : -1}
              onClick={() => setSelected(language.id)}
              className={cx(
                "rounded-md px-3 py-1.5 text-sm font-medium whitespace-nowrap transition-colors",
                "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
                isSelected ? "bg-surface text-foreground shadow-sm ring-1 ring-border" : "text-muted hover:text-foreground",
              )}
            >
              {language.label}
            </button>
          );
        })}
      </div>
      {languages.map((language) => (
        <div
          key={language.id}
          role="tabpanel"
          id={`${baseId}-panel-${language.id}`}
          aria-labelledby={`${baseId}-tab-${language.id}`}
          hidden={language.id !== selected}
          data-testid={`snippet-${language.id}-${operationName}`}
        >
          <CodeBlock title={language.title} code={language.make(call, client)} wrap={language.wrap} />
        </div>
      ))}
    </div>
  );
}
