import type { Metadata } from "next";
import { Suspense } from "react";
import { PublicationsView } from "@/components/publications/publications-view";

export const metadata: Metadata = { title: "Publications" };

export default function PublicationsPage() {
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Publications</h1>
        <p className="text-sm text-muted">
          The publications listed on a professional-network profile, 10 per page. The page is part of the address, so a link
          opens the same page; export what is loaded as CSV or JSON.
        </p>
      </div>
      {/* useSearchParams needs a boundary; the fallback keeps the form's place. */}
      <Suspense fallback={<div className="h-[7.5rem] animate-pulse rounded-xl bg-surface-muted" />}>
        <PublicationsView />
      </Suspense>
    </div>
  );
}
