import type { z } from "zod";
import type { CursorCodec } from "@/lib/connectors/cursor";
import type { Connector, LookupContext, LookupResult } from "@/lib/connectors/types";
import type { JsonObject, SchemaObject } from "@/lib/openapi/types";
import { readParams, type QueryValues } from "./read-params";

/**
 * What an operation is, in one place: the product's unit. Everything that names an operation —
 * /v1 routing, the OpenAPI document, the console's lookup route, usage labels and colours,
 * batches, docs and snippets — reads a definition from the registry (./index.ts) instead of
 * restating it. A module here imports nothing that needs Node: console pages import it too.
 */
export type ParseContext = { cursors: CursorCodec; eventSiteHosts: readonly string[] };

/** One query parameter: its zod schema (with its description) is the validation and the documentation. */
export type OperationParam = {
  name: string;
  /** Validates the string value; its .describe() is the OpenAPI description. */
  schema: z.ZodType<string>;
  required: boolean;
  /** Query-string value used in OpenAPI, try-it forms and snippets: one that finds a demo record. */
  example: string;
  /** Added to the description where the rule spans parameters. */
  note?: string;
  /** The JSON Schema OpenAPI shows when the value is not the plain string the zod schema reads (a page number). */
  openApiSchema?: SchemaObject;
  /** Empty at first in try-it forms: it selects another mode (node_id + cursor instead of userid). */
  alternative?: boolean;
};

export type OperationLabel = {
  /** Short name in tables, legends and CSV: "Publications". */
  short: string;
  /** Which site: "Professional network". */
  site: string;
  /** What a caller passes: "Profile URN, 10 per page". */
  lookedUpBy: string;
};

/** How the upstream provider (an API of the same contract) answers it. */
export type UpstreamRoute = {
  /** The provider's path, without the leading slash: "v1/<site>/<operation>". */
  path: string;
};

export type OperationDefinition<Id extends string, Data, Params> = {
  /** The contract's operation id, also the usage label key and the console route's segment. */
  id: Id;
  /** The /v1 path: "/v1/<site>/<operation>". */
  path: `/v1/${string}`;
  costCredits: number;
  /** OpenAPI summary and card title, the contract's wording. */
  summary: string;
  /** Rules spanning parameters, shown in OpenAPI and the API reference. */
  rule?: string;
  /** The contract's 404 message, word for word. */
  notFoundMessage: string;
  /** Records per page, or null when the answer is one record. */
  pageSize: number | null;
  /** The query parameters, in the order they are checked and documented. */
  params: readonly OperationParam[];
  /** Named in "Missing required parameter" when no optional parameter selects a mode. */
  missingWhenNoneGiven?: string;
  /** The one parameter a single line of a batch fills in ("url", "event_id", "userid", "urn"). */
  primaryParam: string;
  /** The `data` of a 200 answer; its .meta({ id }) names it in OpenAPI. */
  record: z.ZodType<Data>;
  /** A 200 answer's data for OpenAPI, and what it shows. */
  example: { summary: string; data: JsonObject };
  /** The OpenAPI tag's description (the tag is the path's site segment). */
  tagDescription: string;
  label: OperationLabel;
  /** Chart colour: a mid-tone that reads on the light and the dark surface alike. */
  chartColor: string;
  upstream: UpstreamRoute;
  /** Reads the query; throws the contract's 400 (ApiError) on bad input. */
  parse(query: URLSearchParams, context: ParseContext): Params;
  /** Answers the parsed parameters from the data source (the store, or the provider behind its cache). */
  lookup(params: Params, connector: Connector, context: LookupContext): Promise<LookupResult>;
};

/** A lookup the query asked for, ready to run against a data source. */
export type PreparedLookup = (connector: Connector, context: LookupContext) => Promise<LookupResult>;

/**
 * An operation as the registry holds it: its description, and `prepare`, which parses the query
 * (throwing the contract's 400) and returns the lookup — so operations of different parameter
 * types share one shape without casts. `Data` types the console's answers.
 */
export type Operation<Id extends string = string, Data = unknown> = Omit<
  OperationDefinition<Id, Data, unknown>,
  "parse" | "lookup"
> & {
  prepare(query: URLSearchParams, context: ParseContext): PreparedLookup;
};

export const defineOperation = <Id extends string, Data, Params>(
  definition: OperationDefinition<Id, Data, Params>,
): Operation<Id, Data> => {
  const { parse, lookup, ...description } = definition;
  return {
    ...description,
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
  definition: Omit<OperationDefinition<Id, Data, QueryValues>, "parse">,
): Operation<Id, Data> =>
  defineOperation({ ...definition, parse: (query) => readParams(query, definition.params) });
