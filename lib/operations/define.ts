import type { CursorCodec } from "@/lib/connectors/cursor";
import type { Connector, LookupContext, LookupResult } from "@/lib/connectors/types";
import type { ParamName } from "@/lib/api/params";

/**
 * What an operation is, in one place: the product's unit. Everything that names an operation —
 * /v1 routing, OpenAPI, the console's lookup route, usage labels, batches, docs — reads a
 * definition from the registry (./index.ts) instead of restating it.
 */
export type ParseContext = { cursors: CursorCodec; eventSiteHosts: readonly string[] };

export type OperationLabel = {
  /** Short name in tables, legends and CSV: "Publications". */
  short: string;
  /** Which of the three sites: "Professional network". */
  site: string;
  /** What a caller passes: "Profile URN, 10 per page". */
  lookedUpBy: string;
};

/** One flattened CSV row of a batch's results: one event, one follower, one publication. */
export type BatchRow = Record<string, string | number | boolean | null>;

/**
 * What batches need to know of an operation (lib/batches reads it; nothing there names an
 * operation). `data` is the `data` of a 200 answer, as the API sends it.
 */
export type OperationBatch = {
  /** Why the batch preview refuses a line: "not an event URL". */
  invalidInput: string;
  /** CSV columns of one record entry, in order (the rows below use these keys). */
  columns: readonly string[];
  /** One page's data flattened: one row per event / follower / publication. */
  rows(data: unknown): BatchRow[];
  /** The key fields of one page, for the results table: "Summer fair · 2026-07-01". */
  summary(data: unknown): string;
  /** The query of the page after this one, or null when it was the last (paged operations only). */
  nextPage?(data: unknown, query: URLSearchParams): URLSearchParams | null;
  /** One input's pages as one value `npm run import` reads (the API's own shapes), or null. */
  exportRecord(query: URLSearchParams, pages: readonly unknown[]): unknown;
};

export type OperationDefinition<Params> = {
  /** The contract's operation id, also the usage label key: "get_user_publications". */
  id: string;
  /** The /v1 path: "/v1/jobsite/get_user_publications". */
  path: `/v1/${string}`;
  costCredits: number;
  /** OpenAPI summary, the contract's wording. */
  summary: string;
  /** The contract's 404 message, word for word. */
  notFoundMessage: string;
  /** The query parameters the operation reads (their schemas live in lib/api/params.ts). */
  paramNames: readonly ParamName[];
  /** The one parameter a single line of a batch fills in ("url", "event_id", "userid", "urn"). */
  primaryParam: ParamName;
  label: OperationLabel;
  /** Batch lookups of this operation (optional: an operation without it is not offered there). */
  batch?: OperationBatch;
  /** Reads the query; throws the contract's 400 (ApiError) on bad input. */
  parse(query: URLSearchParams, context: ParseContext): Params;
  /** Answers the parsed parameters from the data source. */
  lookup(params: Params, connector: Connector, context: LookupContext): Promise<LookupResult>;
};

/** A lookup the query asked for, ready to run against a data source. */
export type PreparedLookup = (connector: Connector, context: LookupContext) => Promise<LookupResult>;

/**
 * An operation as the registry holds it: its description, and `prepare`, which parses the query
 * (throwing the contract's 400) and returns the lookup — so operations of different parameter
 * types share one shape without casts.
 */
export type Operation = Omit<OperationDefinition<unknown>, "parse" | "lookup"> & {
  prepare(query: URLSearchParams, context: ParseContext): PreparedLookup;
};

export const defineOperation = <Params>(definition: OperationDefinition<Params>): Operation => {
  const { parse, lookup, ...description } = definition;
  return {
    ...description,
    prepare: (query, context) => {
      const params = parse(query, context);
      return (connector, lookupContext) => lookup(params, connector, lookupContext);
    },
  };
};
