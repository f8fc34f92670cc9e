import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";

export type PublicationPagerProps = {
  page: number;
  totalPages: number;
  total: number;
  hasMore: boolean;
  /** Pages this session already holds: opening them again is free. */
  isLoaded: (page: number) => boolean;
  onPage: (page: number) => void;
  pageCostCredits: number;
  /** A page is on its way: buttons stay usable, the summary says so. */
  busy: boolean;
};

const numberFormat = new Intl.NumberFormat("en-US");

/** Where an item of the pager shows: on every screen, only from `sm` up, or only below `sm`. */
type Shown = "always" | "wide" | "narrow";

export type PagerItem = { kind: "page"; page: number; shown: Shown } | { kind: "gap"; shown: Shown };

/** Wide screens: every page up to 7, else the first, the last, the current one's neighbours and a few near an end. */
const widePages = (page: number, totalPages: number): Set<number> => {
  if (totalPages <= 7) return new Set(Array.from({ length: totalPages }, (_, index) => index + 1));
  const shown = new Set([1, totalPages, page - 1, page, page + 1]);
  if (page <= 3) [2, 3, 4].forEach((value) => shown.add(value));
  if (page >= totalPages - 2) [totalPages - 3, totalPages - 2, totalPages - 1].forEach((value) => shown.add(value));
  return shown;
};

/** A phone: the first, the last, the current page and its neighbours. */
const narrowPages = (page: number, totalPages: number): Set<number> => new Set([1, totalPages, page - 1, page, page + 1]);

const shownOn = (wide: boolean, narrow: boolean): Shown => (wide && narrow ? "always" : wide ? "wide" : "narrow");

/**
 * The pager's items for both widths at once (CSS picks per screen): on each, an ellipsis stands
 * wherever pages are skipped, so no page goes missing without a mark.
 */
export const pagerItems = (page: number, totalPages: number): PagerItem[] => {
  const inRange = (value: number) => value >= 1 && value <= totalPages;
  const wide = new Set([...widePages(page, totalPages)].filter(inRange));
  const narrow = new Set([...narrowPages(page, totalPages)].filter(inRange));
  const all = [...new Set([...wide, ...narrow])].sort((left, right) => left - right);
  const items: PagerItem[] = [];
  let lastWide: number | undefined;
  let lastNarrow: number | undefined;
  for (const value of all) {
    const isWide = wide.has(value);
    const isNarrow = narrow.has(value);
    const wideGap = isWide && lastWide !== undefined && value - lastWide > 1;
    const narrowGap = isNarrow && lastNarrow !== undefined && value - lastNarrow > 1;
    if (wideGap || narrowGap) items.push({ kind: "gap", shown: shownOn(wideGap, narrowGap) });
    items.push({ kind: "page", page: value, shown: shownOn(isWide, isNarrow) });
    if (isWide) lastWide = value;
    if (isNarrow) lastNarrow = value;
  }
  return items;
};

const shownClass: Record<Shown, string | undefined> = { always: undefined, wide: "hidden sm:block", narrow: "sm:hidden" };

/** Previous / page numbers / next, the "Page X of Y · N publications" line and the cost of a page. */
export function PublicationPager({
  page,
  totalPages,
  total,
  hasMore,
  isLoaded,
  onPage,
  pageCostCredits,
  busy,
}: PublicationPagerProps) {
  const summary = `Page ${numberFormat.format(page)} of ${numberFormat.format(totalPages)} · ${numberFormat.format(total)} ${
    total === 1 ? "publication" : "publications"
  }`;
  return (
    <nav aria-label="Publication pages" className="flex flex-col gap-3 rounded-xl border border-border bg-surface-muted px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="flex flex-col gap-0.5">
        <p data-testid="pager-summary" aria-live="polite" className="text-sm font-semibold">
          {summary}
          <span className="font-normal text-muted"> · {hasMore ? "more after this page" : "last page"}</span>
          {busy ? <span className="font-normal text-muted"> · loading…</span> : null}
        </p>
        <p className="text-xs text-muted">
          A page not yet loaded costs {pageCostCredits} {pageCostCredits === 1 ? "credit" : "credits"}; loaded pages (
          <span aria-hidden="true" className="inline-block size-1.5 rounded-full bg-success align-middle" />
          <span className="sr-only">marked</span>) are free to open again.
        </p>
      </div>
      {/* One line down to a phone's width: there, Prev/Next keep their arrows and only the first, last and nearby pages show, with an ellipsis for the pages between. */}
      <ul className="flex flex-nowrap items-center gap-1" data-testid="pager-buttons">
        <li>
          <Button
            variant="secondary"
            size="sm"
            data-testid="pager-prev"
            onClick={() => onPage(page - 1)}
            disabled={page <= 1}
            aria-label="Previous page"
          >
            <span aria-hidden="true">←</span>
            <span className="hidden sm:inline">Prev</span>
          </Button>
        </li>
        {pagerItems(page, totalPages).map((entry, index) => {
          if (entry.kind === "gap") {
            return (
              <li key={`gap-${index}`} aria-hidden="true" data-testid="pager-gap" className={cx("px-1 text-sm text-muted", shownClass[entry.shown])}>
                …
              </li>
            );
          }
          const item = entry.page;
          return (
            <li key={item} className={shownClass[entry.shown]}>
              <button
                type="button"
                data-testid={`pager-page-${item}`}
                aria-current={item === page ? "page" : undefined}
                aria-label={`Page ${item}${isLoaded(item) ? ", loaded" : ""}`}
                onClick={() => onPage(item)}
                className={cx(
                  "relative inline-flex h-8 min-w-8 items-center justify-center rounded-lg px-2 text-sm font-medium tabular-nums transition-colors",
                  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
                  item === page
                    ? "bg-accent text-accent-foreground shadow-sm"
                    : "border border-border-strong bg-surface text-foreground hover:bg-surface-muted",
                )}
              >
                {item}
                {isLoaded(item) && item !== page ? (
                  <span aria-hidden="true" className="absolute bottom-0.5 left-1/2 size-1 -translate-x-1/2 rounded-full bg-success" />
                ) : null}
              </button>
            </li>
          );
        })}
        <li>
          <Button
            variant="secondary"
            size="sm"
            data-testid="pager-next"
            onClick={() => onPage(page + 1)}
            disabled={!hasMore && page >= totalPages}
            aria-label="Next page"
          >
            <span className="hidden sm:inline">Next</span>
            <span aria-hidden="true">→</span>
          </Button>
        </li>
      </ul>
    </nav>
  );
}
