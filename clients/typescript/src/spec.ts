/**
 * The shape of one entry of the generated operation table (./generated/operations.ts): what the
 * SDK and its command line need to call an operation, page through it and write its rows. The
 * registry declares all of it (lib/operations); nothing in the SDK names an operation.
 */
export type ParamSpec = {
  readonly name: string;
  readonly required: boolean;
  /** A whole number (a page): sent as its decimal digits. */
  readonly integer: boolean;
  readonly description: string;
};

/** One parameter of the next page's query: copied from this page's query, or read from its data. */
export type NextPageParam =
  | { readonly param: string; readonly fromQuery: true }
  | { readonly param: string; readonly fromData: string; readonly add?: number };

export type PagingSpec = {
  /** Where a page's entries are in `data` (a path, ./paths.ts). */
  readonly entries: string;
  /** The boolean in `data` that is true when another page follows. */
  readonly hasMore: string;
  readonly next: readonly NextPageParam[];
};

export type OperationSpec = {
  /** The registry's operation id (batches name it). */
  readonly id: string;
  readonly path: string;
  /** The command line's command. */
  readonly command: string;
  readonly summary: string;
  readonly costCredits: number;
  /** Entries a page, or null for one record. */
  readonly pageSize: number | null;
  /** The parameter one batch input fills in. */
  readonly primaryParam: string;
  readonly params: readonly ParamSpec[];
  readonly paging: PagingSpec | null;
  /** Batches take it. */
  readonly batch: boolean;
  /** CSV: where a page's rows are (a path with []) and their columns; null: JSON only. */
  readonly csv: { readonly rowsAt: string; readonly columns: readonly string[] } | null;
};
