"use client";

import { useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "@/components/ui/code-block";

export type RevealedToken = {
  /** e.g. "Your new key" or "New token for “CI”". */
  title: string;
  token: string;
  /** Extra context, e.g. how long the previous token keeps working. */
  note?: string;
};

/**
 * The one time a token is visible. The parent holds it in component state only; "Done" drops
 * it, and no request can bring it back.
 */
export function TokenReveal({ revealed, onDone }: { revealed: RevealedToken; onDone: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);

  // Move focus (and the viewport) to the token, wherever the action that produced it was.
  useEffect(() => {
    headingRef.current?.focus();
  }, [revealed]);

  return (
    <section
      aria-labelledby="token-reveal-heading"
      data-testid="new-key-token-panel"
      className="flex flex-col gap-4 rounded-xl border border-warning/40 bg-warning-soft/60 p-5 shadow-sm sm:p-6"
    >
      <div className="flex flex-col gap-1">
        <h2
          id="token-reveal-heading"
          ref={headingRef}
          tabIndex={-1}
          className="text-base font-semibold tracking-tight focus:outline-none"
        >
          {revealed.title}
        </h2>
        <p className="text-sm font-medium text-warning" data-testid="token-warning">
          Copy it now — you will not see it again.
        </p>
        <p className="text-sm text-muted">
          Send it in the <code className="font-mono text-foreground">Authorization: Bearer</code> header. Only a hash
          is stored; if you lose it, roll the key to get a new one.
        </p>
        {revealed.note ? <p className="text-sm text-muted">{revealed.note}</p> : null}
      </div>
      <div data-testid="new-key-token" className="min-w-0">
        <CodeBlock title="API key token" code={revealed.token} wrap />
      </div>
      <div>
        <Button onClick={onDone} data-testid="token-done">
          Done — I have copied it
        </Button>
      </div>
    </section>
  );
}
