import { valueAt } from "./paths";

/**
 * How a paged answer continues, as data rather than code: batches and MCP follow it (nextPageBy),
 * and the SDKs' page iterators read the same declaration from their generated operation table,
 * so a client walks pages exactly as the server's own batches do. Paths: ./paths.ts.
 */
export type NextPageParam =
  /** The same parameter as the page just read ("urn"). */
  | { param: string; fromQuery: true }
  /** A value of the page's `data` ("page_info.end_cursor"), plus `add` when it is a number ("page" + 1). */
  | { param: string; fromData: string; add?: number };

export type OperationPaging = {
  /** Where a page's entries are in `data`: "followers", "data". */
  entries: string;
  /** The boolean in `data` that is true when another page follows: "page_info.has_next_page". */
  hasMore: string;
  /** The next page's query, parameter by parameter; the others of this page's query are dropped. */
  next: readonly NextPageParam[];
};

const nextValue = (step: NextPageParam, data: unknown, query: URLSearchParams): string | null => {
  if ("fromQuery" in step) return query.get(step.param);
  const value = valueAt(data, step.fromData);
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value + (step.add ?? 0));
  return typeof value === "string" && value !== "" && step.add === undefined ? value : null;
};

/** The query of the page after this one, or null when it was the last (or the page lacks what the next needs). */
export const nextPageBy =
  (paging: OperationPaging) =>
  (data: unknown, query: URLSearchParams): URLSearchParams | null => {
    if (valueAt(data, paging.hasMore) !== true) return null;
    const next = new URLSearchParams();
    for (const step of paging.next) {
      const value = nextValue(step, data, query);
      if (value === null) return null;
      next.set(step.param, value);
    }
    return next;
  };
