import type { ReactNode } from "react";

/** A console page: its title, one paragraph saying what it is for, then its content. */
export function ConsolePage({ title, description, children }: { title: string; description: ReactNode; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        <p className="text-sm text-muted">{description}</p>
      </div>
      {children}
    </div>
  );
}
