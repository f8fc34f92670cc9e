import type { z } from "zod";
import type { CursorCodec } from "@/lib/connectors/cursor";
import type { Source } from "@/lib/connectors/source";
import type { Connector, LookupContext, LookupResult } from "@/lib/connectors/types";
import type { JsonObject } from "@/lib/records/json";
import type { RecordKind } from "@/lib/records/kinds";
import type { OperationParam } from "@/lib/records/params";
import type { OperationDescriptor } from "./descriptor";
import type { OperationPaging } from "./paging";
import { readParams, type QueryValues } from "@/lib/records/read-params";

export type { OperationDescriptor, OperationLabel } from "./descriptor";
export type { OperationPaging } from "./paging";
export type { OperationParam } from "@/lib/records/params";

/**
 * What an operation is, in one place: the product's unit. Everything that names an operation —
 * /v1 routing, the OpenAPI document, the console's lookup route, usage labels and colours,
 * batches, docs and snippets — reads a definition from the registry (./index.ts) instead of
 * restating it. The browser's part of a definition is its descriptor (./descriptor.ts), which
 * console pages import instead: what is built here (zod schemas, parsers, examples) is server code.
 */
export type ParseContext = { cursors: CursorCodec; eventSiteHosts: readonly string[] };


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
  /**
   * Where one page's rows are in `data`, as a path (lib/operations/paths.ts): "event" (one row),
   * "followers[].node" (a row per entry's node), "data[]". `rows` is made from it (batch-shapes.ts
   * tableOf), and the SDKs' command line writes its CSV by it, so both flatten a page alike.
   * Absent (rows made otherwise): the command line offers that operation's records as JSON only.
   */
  rowsAt?: string;
  /** One page's data flattened: one row per event / follower / publication. */
  rows(data: unknown): BatchRow[];
  /**
   * The key fields of one page, for the results table: "Summer fair · 2026-07-01". Like nextPage,
   * it reads a page's paging fields and counts its entries, never an entry's content: an MCP answer
   * hands both the record with each top-level list's entries elided (lib/mcp/outline.ts).
   */
  summary(data: unknown): string;
  /** The query of the page after this one, or null when it was the last (paged operations only). */
  nextPage?(data: unknown, query: URLSearchParams): URLSearchParams | null;
  /** One input's pages as one value `npm run import` reads (the API's own shapes), or null. */
  exportRecord(query: URLSearchParams, pages: readonly unknown[]): unknown;
};

/** How the upstream provider (an API of the same contract) answers it. */
export type UpstreamRoute = {
  /** The provider's path, without the leading slash: "v1/<site>/<operation>". */
  path: string;
};

/** Answers the parsed parameters from the data source (the store, or the provider behind its cache). */
export type OperationLookup<Params> = (params: Params, connector: Connector, context: LookupContext) => Promise<LookupResult>;

/**
 * How the operation is answered: by its declared source, which the one engine runs
 * (lib/connectors: store or provider, single-flight, cache, suppression; the folder's source.ts),
 * or by a lookup of its own.
 */
export type OperationAnswer<Params, Data> =
  | { source: Source<Params, Data>; lookup?: never; upstream?: never }
  | {
      source?: never;
      lookup: OperationLookup<Params>;
      /** The provider path of an operation answered by its own lookup (a source declares its own). */
      upstream?: UpstreamRoute;
    };

/**
 * The whole operation: its descriptor (id, path, cost, page size, primary parameter, labels,
 * chart colour — what the browser may know) and what only the server and the documents need.
 */
export type OperationCore<Id extends string, Data, Params> = OperationDescriptor<Id> & {
  /** OpenAPI summary and card title, the contract's wording. */
  summary: string;
  /** Rules spanning parameters, shown in OpenAPI and the API reference. */
  rule?: string;
  /** The contract's 404 message, word for word. */
  notFoundMessage: string;
  /** The query parameters, in the order they are checked and documented. */
  params: readonly OperationParam[];
  /** Named in "Missing required parameter" when no optional parameter selects a mode. */
  missingWhenNoneGiven?: string;
  /** The `data` of a 200 answer; its .meta({ id }) names it in OpenAPI. */
  record: z.ZodType<Data>;
  /** A 200 answer's data for OpenAPI, and what it shows. */
  example: { summary: string; data: JsonObject };
  /** The OpenAPI tag's description (the tag is the path's site segment). */
  tagDescription: string;
  /** Batch lookups of this operation (optional: an operation without it is not offered there). */
  batch?: OperationBatch;
  /**
   * How a paged answer continues, declared as data (./paging.ts): batches and MCP follow it through
   * `batch.nextPage` (made from it by nextPageBy), the SDKs' page iterators read it from their
   * generated operation table (clients/). Absent: the answer is one record.
   */
  paging?: OperationPaging;
  /** Reads the query; throws the contract's 400 (ApiError) on bad input. */
  parse(query: URLSearchParams, context: ParseContext): Params;
};

export type OperationDefinition<Id extends string, Data, Params> = OperationCore<Id, Data, Params> & OperationAnswer<Params, Data>;

/** A lookup the query asked for, ready to run against a data source. */
export type PreparedLookup = (connector: Connector, context: LookupContext) => Promise<LookupResult>;

/**
 * An operation as the registry holds it: its description, and `prepare`, which parses the query
 * (throwing the contract's 400) and returns the lookup — so operations of different parameter
 * types share one shape without casts. `Data` types the console's answers.
 */
export type Operation<Id extends string = string, Data = unknown> = Omit<OperationCore<Id, Data, unknown>, "parse"> & {
  prepare(query: URLSearchParams, context: ParseContext): PreparedLookup;
  /**
   * The kind of record its source answers (lib/records/kinds.ts), when it declares one: the kinds
   * the registry's operations name are the kinds privacy, import, export and the database serve.
   */
  recordKind?: RecordKind;
};

const lookupOf = <Params, Data>(answer: OperationAnswer<Params, Data>): OperationLookup<Params> => {
  if (answer.source === undefined) return answer.lookup;
  const { source } = answer;
  return (params, connector, context) => connector.lookup(source, params, context);
};

export const defineOperation = <Id extends string, Data, Params>(
  definition: OperationDefinition<Id, Data, Params>,
): Operation<Id, Data> => {
  const lookup = lookupOf(definition);
  const { parse, source: _source, lookup: _lookup, upstream: _upstream, ...description } = definition;
  return {
    ...description,
    ...(definition.source === undefined ? {} : { recordKind: definition.source.kind }),
    prepare: (query, context) => {
      const params = parse(query, context);
      return (connector, lookupContext) => lookup(params, connector, lookupContext);
    },
  };
};

/**
 * For operations whose parameters need no reading beyond their schemas: the declared
 * parameters, checked in order (missing → invalid), handed to `lookup` by name.
 */
export const defineSimpleOperation = <Id extends string, Data>(
  definition: Omit<OperationCore<Id, Data, QueryValues>, "parse"> & OperationAnswer<QueryValues, Data>,
): Operation<Id, Data> =>
  defineOperation({ ...definition, parse: (query) => readParams(query, definition.params) });
