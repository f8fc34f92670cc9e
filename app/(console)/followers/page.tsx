import type { Metadata } from "next";
import { Suspense } from "react";
import { FollowersView } from "@/components/followers/followers-view";

export const metadata: Metadata = { title: "Followers" };

export default function FollowersPage() {
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Followers</h1>
        <p className="text-sm text-muted">
          The followers of a pin-board user, 25 per page. Scroll to load more, or load many pages at once within a credit
          budget; export what is loaded as CSV or JSON.
        </p>
      </div>
      {/* useSearchParams needs a boundary; the fallback keeps the form's place. */}
      <Suspense fallback={<div className="h-[7.5rem] animate-pulse rounded-xl bg-surface-muted" />}>
        <FollowersView />
      </Suspense>
    </div>
  );
}
