import type { Publication } from "@/lib/query/publications";
import { cx } from "@/components/ui/class-names";
import { Icon } from "@/components/ui/icon";

/** Only http(s) links: a record's URL is third-party data and never a `javascript:` target. */
const safeLink = (url: string): URL | null => {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed : null;
  } catch {
    return null;
  }
};

export type PublicationListProps = {
  publications: readonly Publication[];
  /** The page these publications are from (may differ from the URL's while the next one loads). */
  page: number;
  /** Number of the first item (10 per page), so positions read on across pages. */
  start: number;
  /** A different page is on its way: the current one stays, dimmed. */
  stale: boolean;
};

/** A page of publications as cards: title, publisher and date, description with its line breaks, link. */
export function PublicationList({ publications, page, start, stale }: PublicationListProps) {
  return (
    <ol
      data-testid="publications-list"
      data-page={page}
      start={start}
      aria-busy={stale}
      className={cx("flex flex-col gap-3 transition-opacity", stale && "opacity-60")}
    >
      {publications.map((publication, index) => {
        const link = safeLink(publication.publication_url);
        return (
          <li
            key={`${start + index}-${publication.publication_url}`}
            data-testid="publication-item"
            className="rounded-xl border border-border bg-surface p-4 shadow-sm sm:p-5"
          >
            <article className="flex flex-col gap-2">
              <div className="flex items-start gap-3">
                <span aria-hidden="true" className="mt-0.5 min-w-6 text-sm font-medium text-muted tabular-nums">
                  {start + index}.
                </span>
                <div className="flex min-w-0 flex-1 flex-col gap-1">
                  <h3 className="text-base font-semibold tracking-tight [overflow-wrap:anywhere]">{publication.title}</h3>
                  <p className="text-sm text-muted">
                    <span className="font-medium text-foreground">{publication.publication}</span>
                    <span aria-hidden="true"> · </span>
                    <span className="sr-only">, </span>
                    {publication.date}
                  </p>
                </div>
              </div>
              {publication.description ? (
                <p className="pl-9 text-sm leading-relaxed whitespace-pre-line text-foreground/90 [overflow-wrap:anywhere]">
                  {publication.description}
                </p>
              ) : null}
              {link ? (
                <p className="pl-9">
                  <a
                    href={link.href}
                    target="_blank"
                    rel="noopener noreferrer"
                    className="inline-flex max-w-full items-center gap-1 text-sm font-medium text-accent underline-offset-2 hover:underline"
                  >
                    <span className="truncate">Read on {link.host.replace(/^www\./, "")}</span>
                    <Icon name="externalLink" className="size-3.5 shrink-0" />
                    <span className="sr-only">(opens in a new tab)</span>
                  </a>
                </p>
              ) : null}
            </article>
          </li>
        );
      })}
    </ol>
  );
}
