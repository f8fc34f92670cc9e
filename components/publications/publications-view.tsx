"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, type FormEvent } from "react";
import { safeFileName } from "@/components/export/download-buttons";
import { LookupErrorPanel } from "@/components/lookup/lookup-error-panel";
import { LookupResultSection } from "@/components/lookup/lookup-result-section";
import { LookupSkeleton } from "@/components/lookup/lookup-skeleton";
import { NotRunPanel } from "@/components/lookup/not-run-panel";
import { PagedLookupPage } from "@/components/lookup/paged-lookup-page";
import { useLookupUrl, useRequestedSubjects } from "@/components/lookup/use-lookup-url";
import { submittedValue, useUrlField } from "@/components/lookup/use-url-field";
import { Button } from "@/components/ui/button";
import {
  isPageNumber,
  isProfileUrn,
  publicationsKeyFor,
  publicationsQuery,
  publicationsPageCost,
  PUBLICATIONS_PAGE_SIZE,
  type PublicationsPage,
} from "@/lib/query/publications";
import { loadedPublications, publicationCsvColumns } from "./publication-export";
import { PublicationList } from "./publication-list";
import { PublicationPager } from "./publication-pager";

const PAGE_COST_CREDITS = publicationsPageCost;
const URN_PROBLEM = "Enter a profile URN: urn:li:<type>:<id>, e.g. urn:li:member:3000000001.";

/** `?page=` as a page number; anything but a whole number from 1 reads as page 1. */
const pageFromUrl = (raw: string | null): number => {
  return raw !== null && isPageNumber(raw) ? Number(raw) : 1;
};

/** A URN from the URL that is not one: said at once, under the field. */
const urnProblem = (value: string): string | null => (value !== "" && !isProfileUrn(value) ? URN_PROBLEM : null);

/**
 * The /publications page. The URL is the state (`?urn=…&page=3`): the pager pushes a new URL,
 * so a page can be shared and Back goes to the page before. Opening such a URL never buys the page
 * by itself: it shows at once only if this session already holds it, otherwise the page says what
 * the link would look up and its cost, and waits for Run. Pages already seen are free.
 */
export function PublicationsView() {
  const url = useLookupUrl();
  const queryClient = useQueryClient();
  const urn = url.param("urn");
  const page = pageFromUrl(url.searchParams.get("page"));
  const urnValid = isProfileUrn(urn);

  const field = useUrlField(urn, urnProblem);
  // Profiles the user ran in this visit: their pages load as the pager asks. Any other profile
  // (a shared link, a reload) shows only what this session holds.
  const [requested, request] = useRequestedSubjects();
  const held = urnValid && queryClient.getQueryData(publicationsQuery(urn, page).queryKey) !== undefined;
  const active = urnValid && (held || requested.has(urn));

  const { data, error, errorUpdatedAt, isError, isFetching, isPending, isPlaceholderData, refetch } = useQuery({
    ...publicationsQuery(urn, page),
    enabled: active,
    // While another page of the same profile loads, keep showing the current one (no jump).
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === urn ? previous : undefined),
  });

  const headingRef = useRef<HTMLHeadingElement>(null);
  const goToPage = (target: number, { fromBottom = false }: { fromBottom?: boolean } = {}) => {
    if (target < 1 || target === page) return;
    // A page asked for with the pager is the user's own request (pages held cost nothing).
    request(urn);
    url.push({ urn, page: String(target) });
    // From the pager under the list, bring the top of the new page into view.
    if (fromBottom) headingRef.current?.scrollIntoView({ block: "start" });
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const value = submittedValue(event, field, isProfileUrn, URN_PROBLEM);
    if (value === null) return;
    request(value);
    // Run on the link's own profile buys the page the link names; otherwise it starts at page 1.
    if (value === urn && !active) return;
    if (value !== urn || page !== 1) {
      url.push({ urn: value, page: "1" });
    } else if (isError) {
      void refetch();
    }
  };

  // Everything this session holds for the profile: read from the cache on each render, which
  // happens whenever a page of it arrives.
  const heldPages = urnValid
    ? queryClient.getQueriesData<PublicationsPage>({ queryKey: publicationsKeyFor(urn) }).map(([, held]) => held)
    : [];
  const exportRows = loadedPublications(heldPages);
  const isLoaded = (target: number) => queryClient.getQueryData(publicationsQuery(urn, target).queryKey) !== undefined;

  const result = data?.data;
  const totalPages = result ? Math.max(1, Math.ceil(result.total / PUBLICATIONS_PAGE_SIZE)) : 1;
  const showError = active && isError && !isFetching;
  // While the placeholder (the previous page) shows, its has_more is not this page's.
  const hasMore = result ? (isPlaceholderData ? page < totalPages : result.has_more) : false;

  return (
    <PagedLookupPage
      costCredits={PAGE_COST_CREDITS}
      onSubmit={onSubmit}
      looking={isPending && isFetching}
      testId="publications"
      field={field}
      name="urn"
      lookupError={error}
      subject="profile"
      label="Profile URN"
      placeholder="e.g. urn:li:member:3000000001"
      hint={`Each page of ${PUBLICATIONS_PAGE_SIZE} publications costs ${PAGE_COST_CREDITS} credit. Pages already loaded in this session are free.`}
    >
      {showError ? (
        <LookupErrorPanel error={error} subject="profile" errorAt={errorUpdatedAt} onRetry={() => void refetch()} retrying={isFetching} />
      ) : null}

      {urnValid && !active ? (
        <NotRunPanel
          testId="publications-not-run"
          costCredits={PAGE_COST_CREDITS}
          onRun={() => request(urn)}
          what={
            <>
              Page {page} of the publications of <span className="font-medium text-foreground">{urn}</span>
            </>
          }
        />
      ) : null}

      {active && isPending && isFetching ? <PublicationsSkeleton /> : null}

      {active && result && !showError ? (
        <LookupResultSection
          headingId="publications-heading"
          heading={`Publications of ${urn}`}
          headingRef={headingRef}
          headingClassName="min-w-0 scroll-mt-20 [overflow-wrap:anywhere]"
          exportProps={{
            rows: () => exportRows,
            rowCount: exportRows.length,
            csvColumns: publicationCsvColumns,
            fileName: `publications-${safeFileName(urn)}`,
            noun: "publications",
          }}
        >
          {result.total === 0 ? (
            <p data-testid="publications-empty" className="rounded-xl border border-dashed border-border-strong px-4 py-8 text-center text-sm text-muted">
              This profile has no publications.
            </p>
          ) : (
            <>
              <PublicationPager
                page={page}
                totalPages={totalPages}
                total={result.total}
                hasMore={hasMore}
                isLoaded={isLoaded}
                onPage={goToPage}
                pageCostCredits={PAGE_COST_CREDITS}
                busy={isFetching}
              />
              {result.data.length > 0 ? (
                <>
                  <PublicationList
                    publications={result.data}
                    page={result.page}
                    start={(result.page - 1) * PUBLICATIONS_PAGE_SIZE + 1}
                    stale={isPlaceholderData}
                  />
                  {totalPages > 1 ? (
                    <nav aria-label="Publication pages, end of list" className="flex items-center justify-between gap-3">
                      <Button variant="ghost" size="sm" onClick={() => goToPage(page - 1, { fromBottom: true })} disabled={page <= 1}>
                        <span aria-hidden="true">←</span> Previous page
                      </Button>
                      <span className="text-sm whitespace-nowrap text-muted">
                        Page {page} of {totalPages}
                      </span>
                      <Button
                        variant="ghost"
                        size="sm"
                        onClick={() => goToPage(page + 1, { fromBottom: true })}
                        disabled={!hasMore && page >= totalPages}
                      >
                        Next page <span aria-hidden="true">→</span>
                      </Button>
                    </nav>
                  ) : null}
                </>
              ) : (
                <div className="flex flex-col items-center gap-3 rounded-xl border border-dashed border-border-strong px-4 py-8 text-center text-sm text-muted">
                  <p>
                    Page {page} is past the end: this profile has {result.total} publications on {totalPages}{" "}
                    {totalPages === 1 ? "page" : "pages"}.
                  </p>
                  <Button variant="secondary" size="sm" onClick={() => goToPage(totalPages)}>
                    Go to page {totalPages}
                  </Button>
                </div>
              )}
            </>
          )}
        </LookupResultSection>
      ) : null}
    </PagedLookupPage>
  );
}

function PublicationsSkeleton() {
  return (
    <LookupSkeleton loadingText="Loading publications…" headingWidth="w-72" toolbarHeight="h-16">
      {Array.from({ length: 3 }, (_, index) => (
        <div key={index} className="flex flex-col gap-2 rounded-xl border border-border bg-surface p-5 shadow-sm">
          <div className="h-4 w-2/3 animate-pulse rounded bg-surface-muted" />
          <div className="h-3 w-1/3 animate-pulse rounded bg-surface-muted" />
          <div className="h-3 w-full animate-pulse rounded bg-surface-muted" />
          <div className="h-3 w-5/6 animate-pulse rounded bg-surface-muted" />
        </div>
      ))}
    </LookupSkeleton>
  );
}
