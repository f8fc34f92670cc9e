"use client";

import { useEffect, useRef, useState } from "react";
import { cx } from "./class-names";

type CopyState = "idle" | "copied" | "failed";

export type CodeBlockProps = {
  code: string;
  /** Shown in the title bar, e.g. "Terminal" or "Response"; also names the region. */
  title?: string;
  /** Soft-wrap long lines (one-line shell commands) instead of scrolling sideways. */
  wrap?: boolean;
  className?: string;
};

/** Copies via the async Clipboard API; plain-http deployments lack it, so fall back to a selection copy. */
const copyText = async (text: string, source: HTMLElement | null): Promise<boolean> => {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission denied or document not focused: try the selection fallback below.
    }
  }
  const selection = window.getSelection();
  if (!source || !selection) return false;
  const range = document.createRange();
  range.selectNodeContents(source);
  selection.removeAllRanges();
  selection.addRange(range);
  const copied = document.execCommand("copy");
  selection.removeAllRanges();
  return copied;
};

const labels: Record<CopyState, string> = { idle: "Copy", copied: "Copied", failed: "Copy failed" };

export function CodeBlock({ code, title, wrap = false, className }: CodeBlockProps) {
  const [state, setState] = useState<CopyState>("idle");
  const codeRef = useRef<HTMLElement>(null);

  useEffect(() => {
    if (state === "idle") return;
    const timer = window.setTimeout(() => setState("idle"), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);

  const onCopy = async () => {
    setState((await copyText(code, codeRef.current)) ? "copied" : "failed");
  };

  return (
    <div className={cx("overflow-hidden rounded-xl border border-border bg-code text-code-foreground shadow-sm", className)}>
      <div className="flex items-center justify-between gap-3 border-b border-white/10 px-4 py-2">
        <span className="truncate text-xs font-medium text-code-foreground/70">{title ?? "Code"}</span>
        <button
          type="button"
          onClick={onCopy}
          aria-label={title ? `Copy ${title}` : "Copy code"}
          className="inline-flex h-7 shrink-0 items-center rounded-md px-2.5 text-xs font-medium text-code-foreground/80 ring-1 ring-white/15 transition-colors ring-inset hover:bg-white/10 hover:text-code-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
        >
          {labels[state]}
        </button>
        <span className="sr-only" role="status" aria-live="polite">
          {state === "copied" ? "Copied to clipboard" : state === "failed" ? "Copy failed" : ""}
        </span>
      </div>
      {/* Focusable so keyboard users can scroll long lines. */}
      <pre
        tabIndex={0}
        aria-label={title}
        className={cx(
          "overflow-x-auto p-4 text-[13px] leading-relaxed focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring",
          wrap && "whitespace-pre-wrap [overflow-wrap:anywhere]",
        )}
      >
        <code ref={codeRef} className="font-mono">
          {code}
        </code>
      </pre>
    </div>
  );
}
