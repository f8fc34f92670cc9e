import { valueAt } from "./paths.js";
import type { OperationSpec, PagingSpec } from "./spec.js";
import type { Answer, CallOptions, IterateOptions, PagedOperation, PageWalk } from "./types.js";

/**
 * Page iteration, driven by the operation's declared paging (the registry's, through the generated
 * table): the next page's query comes from the page just read, until it says no more. One page is
 * fetched at a time and only when asked for, so a loop that stops early spends nothing more.
 */
export type PageCall<Data> = (query: URLSearchParams, options: CallOptions | undefined) => Promise<Answer<Data>>;

/** The query of the page after `data`, or null after the last. */
export const nextQuery = (paging: PagingSpec, data: unknown, query: URLSearchParams): URLSearchParams | null => {
  if (valueAt(data, paging.hasMore) !== true) return null;
  const next = new URLSearchParams();
  for (const step of paging.next) {
    let value: string | null = null;
    if ("fromQuery" in step) value = query.get(step.param);
    else {
      const found = valueAt(data, step.fromData);
      if (typeof found === "number" && Number.isSafeInteger(found)) value = String(found + (step.add ?? 0));
      else if (typeof found === "string" && found !== "" && step.add === undefined) value = found;
    }
    if (value === null) return null;
    next.set(step.param, value);
  }
  return next.toString() === query.toString() ? null : next;
};

class Walk<Data, Item> implements PageWalk<Item> {
  pagesFetched = 0;
  creditsCharged = 0;
  creditsRemaining: number | null = null;

  constructor(
    private readonly call: PageCall<Data>,
    private readonly paging: PagingSpec,
    private readonly firstQuery: URLSearchParams,
    private readonly options: IterateOptions,
    private readonly itemsOf: (answer: Answer<Data>) => Iterable<Item>,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let query: URLSearchParams | null = this.firstQuery;
    let pages = 0;
    while (query !== null) {
      const answer = await this.call(query, this.options);
      pages += 1;
      this.pagesFetched += 1;
      this.creditsCharged += answer.credits.charged;
      this.creditsRemaining = answer.credits.remaining;
      yield* this.itemsOf(answer);
      if (this.options.maxPages !== undefined && pages >= this.options.maxPages) return;
      query = nextQuery(this.paging, answer.data, query);
    }
  }
}

/** One page's entries, in order. */
const entriesOf = (paging: PagingSpec, data: unknown): unknown[] => {
  const entries = valueAt(data, paging.entries);
  return Array.isArray(entries) ? entries : [];
};

/** The query of a call: the operation's parameters in its order; empty ones left out, as the API treats them as absent. */
export const queryOf = (spec: OperationSpec, params: object): URLSearchParams => {
  const values = params as Record<string, unknown>;
  const known = new Set(spec.params.map((param) => param.name));
  for (const name of Object.keys(values)) {
    if (!known.has(name)) throw new TypeError(`${spec.command}: unknown parameter "${name}" (it takes ${[...known].join(", ")})`);
  }
  const query = new URLSearchParams();
  for (const param of spec.params) {
    const value = values[param.name];
    if (value === undefined || value === null || value === "") continue;
    query.set(param.name, String(value));
  }
  return query;
};

/** A paged operation's callable: one page; .iterate() its entries; .pages() its answers. */
export const pagedOperation = <Params extends object, Data, Entry>(spec: OperationSpec, call: PageCall<Data>): PagedOperation<Params, Data, Entry> => {
  const paging = spec.paging;
  if (paging === null) throw new TypeError(`${spec.command} is not paged`);
  const onePage = async (params: Params, options?: CallOptions) => await call(queryOf(spec, params), options);
  return Object.assign(onePage, {
    iterate: (params: Params, options: IterateOptions = {}): PageWalk<Entry> =>
      new Walk<Data, Entry>(call, paging, queryOf(spec, params), options, (answer) => entriesOf(paging, answer.data) as Entry[]),
    pages: (params: Params, options: IterateOptions = {}): PageWalk<Answer<Data>> =>
      new Walk<Data, Answer<Data>>(call, paging, queryOf(spec, params), options, (answer) => [answer]),
  });
};
