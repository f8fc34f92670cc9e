import { z } from "zod";
import { invalid, messages, missing } from "@/lib/api/errors";
import { operationNames, operations, type OperationName } from "@/lib/api/operations";
import { paramSchemas, type ParamName } from "@/lib/api/params";
import { eventDataSchema, followersDataSchema, publicationsDataSchema } from "@/lib/api/records";
import { accountDataSchema } from "@/lib/usage/account-schema";

/**
 * The OpenAPI 3.1 document served at /v1/openapi.json (decisions.md "Versioning"). Records and
 * parameters come from the same zod schemas the API validates with, so the document cannot
 * drift from the code; envelopes, messages, headers and costs come from lib/api.
 */

// ---------------------------------------------------------------------------------------------
// Types: the subset of OpenAPI 3.1 this document uses.

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };
/** A JSON Schema (draft 2020-12) object, as OpenAPI 3.1 embeds it. */
export type SchemaObject = JsonObject;
export type ReferenceObject = { $ref: string };

export type ParameterObject = {
  name: ParamName;
  in: "query";
  required: boolean;
  description: string;
  schema: SchemaObject;
  example: string | number;
};

export type HeaderObject = { description: string; required?: boolean; schema: SchemaObject };

export type ExampleObject = { summary: string; value: JsonValue };

export type MediaTypeObject = {
  schema: SchemaObject | ReferenceObject;
  examples?: Record<string, ExampleObject>;
};

export type ResponseObject = {
  description: string;
  headers?: Record<string, ReferenceObject>;
  content: { "application/json": MediaTypeObject };
};

/** A response the HTTP server itself sends, before any route runs: no body. */
export type BodilessResponseObject = { description: string; headers?: Record<string, ReferenceObject> };

/** The JSON body of a response, or undefined for one without a body. */
export const jsonMedia = (response: ResponseObject | BodilessResponseObject | undefined): MediaTypeObject | undefined =>
  response && "content" in response ? response.content["application/json"] : undefined;

export type SecurityRequirement = Record<string, string[]>;

export type OperationObject = {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: SecurityRequirement[];
  parameters: ParameterObject[];
  responses: Record<string, ResponseObject | BodilessResponseObject>;
  /** Credits charged for a 200 answer; mirrors the X-Credits-Cost header. */
  "x-credits-cost"?: number;
};

export type SecuritySchemeObject = {
  type: "http";
  scheme: "bearer";
  bearerFormat: "JWT";
  description: string;
};

export type OpenApiDocument = {
  openapi: "3.1.0";
  info: {
    title: string;
    version: string;
    description: string;
    contact: { name: string; url: string };
    license: { name: string; identifier: string };
  };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, { get: OperationObject }>;
  components: {
    schemas: Record<string, SchemaObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
};

// ---------------------------------------------------------------------------------------------
// zod → components/schemas

const SCHEMAS_PREFIX = "#/components/schemas/";
const schemaRef = (id: string): ReferenceObject => ({ $ref: `${SCHEMAS_PREFIX}${id}` });
const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

const isJsonObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * zod's output re-typed as plain JSON, with its local `#/$defs/<id>` refs pointed at
 * components/schemas (where the $defs are moved). Walking `unknown` avoids a cast.
 */
const toDocumentJson = (value: unknown): JsonValue => {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  if (Array.isArray(value)) return value.map(toDocumentJson);
  if (typeof value !== "object") throw new Error(`not representable in JSON: ${typeof value}`);
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === "$ref" && typeof child === "string"
        ? child.replace(/^#\/\$defs\//, SCHEMAS_PREFIX)
        : toDocumentJson(child);
  }
  return out;
};

type ConvertedSchema = { root: SchemaObject; defs: Record<string, SchemaObject> };

/** One zod schema as JSON Schema 2020-12: its root (a $ref when it has a meta id) and its $defs. */
const convert = (schema: z.ZodType): ConvertedSchema => {
  const json = toDocumentJson(z.toJSONSchema(schema, { target: "draft-2020-12" }));
  if (!isJsonObject(json)) throw new Error("zod produced a non-object JSON Schema");
  // `$schema` is implied by OpenAPI 3.1's dialect; `$defs` move to components.
  const { $schema: _dialect, $defs, ...root } = json;
  const defs: Record<string, SchemaObject> = {};
  if (isJsonObject($defs)) {
    for (const [id, def] of Object.entries($defs)) {
      if (!isJsonObject(def)) throw new Error(`$defs/${id} is not an object`);
      defs[id] = def;
    }
  }
  return { root, defs };
};

/** Adds $defs to the components; the same id must always mean the same schema. */
const mergeDefs = (target: Record<string, SchemaObject>, defs: Record<string, SchemaObject>) => {
  for (const [id, def] of Object.entries(defs)) {
    const existing = target[id];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(def)) {
      throw new Error(`two different schemas carry the meta id "${id}"`);
    }
    target[id] = def;
  }
};

const metaId = (schema: z.ZodType): string => {
  const id = schema.meta()?.id;
  if (typeof id !== "string") throw new Error("a response data schema needs .meta({ id })");
  return id;
};

// ---------------------------------------------------------------------------------------------
// Examples (the ids the project uses across its examples and demo data)

const EXAMPLE_REQUEST_ID = "5b0f3c1e-7a2d-4e8b-9c61-0d2f4a7e9b13";

const exampleEventDetails: JsonObject = {
  event: {
    stats: "ok",
    event_id: "1000000000000001",
    start_date: "2025-06-14",
    start_time: "18:00:00",
    end_date: "2025-06-14",
    end_time: "22:00:00",
    local_formatted_time: "Saturday, June 14, 2025 at 6:00 PM – 10:00 PM CEST",
    title: "Riverside Jazz Night",
    location_text: "Harbour Hall, Hamburg",
    lat: 53.5438,
    lng: 9.9661,
    details: "Live jazz by the river.\nDoors open at 17:30 🎷 #jazz #livemusic",
    source: "demo",
    tags: [],
    has_tickets: null,
    hosts: ["riverside.events"],
    related_events: [
      {
        event_id: "1000000000000002",
        url: "https://events.demo.test/events/1000000000000002/",
        title: "Riverside Blues Night",
      },
    ],
    responded_count: 312,
    cover_image_url: "https://images.demo.test/events/1000000000000001/cover.jpg",
    location_place: null,
    location_from_details: { name: "Harbour Hall", contextual_name: "Harbour Hall, Hamburg" },
    is_canceled: false,
  },
};

// Node ids are base64("User:<entityId>") (lib/connectors/node-id.ts); written out here so this
// module stays free of Node's Buffer and can be imported by the console's pages.
const exampleFollowersPage: JsonObject = {
  followers: [
    {
      node: {
        username: "maple.and.pine",
        status: "ok",
        fullName: "Maple & Pine",
        imageMediumUrl: "https://images.demo.test/users/2000000101/medium.jpg",
        imageXlargeUrl: "https://images.demo.test/users/2000000101/xlarge.jpg",
        entityId: "2000000101",
        isPrivateProfile: false,
        verifiedIdentity: { verified: null },
        id: "VXNlcjoyMDAwMDAwMTAx",
        __typename: "User",
      },
      cursor: null,
    },
    {
      node: {
        username: "quiet.corner",
        status: "ok",
        fullName: "Quiet Corner",
        imageMediumUrl: null,
        imageXlargeUrl: null,
        entityId: "2000000102",
        isPrivateProfile: true,
        verifiedIdentity: null,
        id: "VXNlcjoyMDAwMDAwMTAy",
        __typename: "User",
      },
      cursor: null,
    },
  ],
  node_id: "VXNlcjoyMDAwMDAwMDAy",
  page_info: { has_next_page: true, end_cursor: "MjU.c2lnbmVk" },
};

const examplePublicationsPage: JsonObject = {
  page: 1,
  total: 2,
  has_more: false,
  data: [
    {
      title: "Designing Credit-Based APIs",
      publication: "Demo Engineering Journal",
      description: "How metered APIs reserve and settle credits.\nWith worked examples.",
      date: "Mar 3, 2024",
      publication_url: "https://publications.demo.test/articles/credit-based-apis",
    },
    {
      title: "Cursor Pagination in Practice",
      publication: "Demo Engineering Journal",
      description: "Opaque cursors, page sizes and tamper checks.",
      date: "Nov 18, 2023",
      publication_url: "https://publications.demo.test/articles/cursor-pagination",
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// Which operation takes which parameter (decisions.md "Parameters")

type ParamSpec = {
  name: ParamName;
  required: boolean;
  /** Query-string value used in examples, try-it forms and snippets. */
  example: string;
  /** Added to the zod description where the rule spans parameters. */
  note?: string;
};

type OperationSpec = {
  params: readonly ParamSpec[];
  /** Named in "Missing required parameter" when no optional parameter selects a mode. */
  missingWhenNoneGiven?: ParamName;
  rule?: string;
  dataSchema: z.ZodType;
  exampleData: JsonObject;
  exampleSummary: string;
};

const FOLLOWERS_RULE =
  "userid → first page; else node_id + cursor → the page after that cursor " +
  "(node_id is data.node_id, cursor is data.page_info.end_cursor of the previous page); " +
  "neither → 400 Missing required parameter: userid. Page size 25.";

const operationSpecs: Record<OperationName, OperationSpec> = {
  event_details: {
    params: [{ name: "url", required: true, example: "https://events.demo.test/events/1000000000000001/" }],
    rule: "The url is https://<host>/events/<digits>/ on a configured event-site host; www./m. prefixes and a query string are accepted.",
    dataSchema: eventDataSchema,
    exampleData: exampleEventDetails,
    exampleSummary: "an event",
  },
  event_details_id: {
    params: [{ name: "event_id", required: true, example: "1000000000000001" }],
    dataSchema: eventDataSchema,
    exampleData: exampleEventDetails,
    exampleSummary: "an event",
  },
  followers: {
    params: [
      { name: "userid", required: false, example: "2000000002", note: "Required unless node_id is given." },
      { name: "node_id", required: false, example: "VXNlcjoyMDAwMDAwMDAy" },
      { name: "cursor", required: false, example: "MjU.c2lnbmVk" },
    ],
    missingWhenNoneGiven: "userid",
    rule: FOLLOWERS_RULE,
    dataSchema: followersDataSchema,
    exampleData: exampleFollowersPage,
    exampleSummary: "a first page of followers (shortened to two entries)",
  },
  get_user_publications: {
    params: [
      { name: "urn", required: true, example: "urn:li:member:3000000001" },
      { name: "page", required: false, example: "1" },
    ],
    rule: "Page size 10. A page past the end answers 200 with data: [], has_more: false and the real total.",
    dataSchema: publicationsDataSchema,
    exampleData: examplePublicationsPage,
    exampleSummary: "the first page of publications",
  },
};

// ---------------------------------------------------------------------------------------------
// Parameters

const paramDescription = (spec: ParamSpec): string => {
  const base = paramSchemas[spec.name].description ?? spec.name;
  return spec.note === undefined ? base : `${base}. ${spec.note}`;
};

/**
 * The query value's JSON Schema. `page` travels as a string of digits (params.ts checks
 * /^\d{1,6}$/ and ≥ 1, a refinement zod cannot express), but clients see it as the integer it is.
 */
const paramSchema = (name: ParamName): SchemaObject => {
  if (name === "page") return { type: "integer", minimum: 1, maximum: 999999, default: 1 };
  const { root } = convert(paramSchemas[name]);
  const { description: _movedToParameter, ...schema } = root;
  return schema;
};

const parameterObject = (spec: ParamSpec): ParameterObject => {
  const schema = paramSchema(spec.name);
  return {
    name: spec.name,
    in: "query",
    required: spec.required,
    description: paramDescription(spec),
    schema,
    example: schema.type === "integer" ? Number(spec.example) : spec.example,
  };
};

// ---------------------------------------------------------------------------------------------
// Envelopes and responses

const pluralCredits = (costCredits: number) => `${costCredits} credit${costCredits === 1 ? "" : "s"}`;

const requestIdSchema: SchemaObject = { type: "string", format: "uuid", description: "fresh UUID v4, also in X-Request-Id" };

const envelope = (code: SchemaObject, message: SchemaObject, data: SchemaObject | ReferenceObject): SchemaObject => ({
  type: "object",
  properties: { code, message, data, requestId: requestIdSchema },
  required: ["code", "message", "data", "requestId"],
  additionalProperties: false,
});

const successEnvelope = (dataId: string): SchemaObject =>
  envelope({ type: "integer", const: 0 }, { type: "string", const: "success" }, schemaRef(dataId));

const errorEnvelope = (status: number, errorMessages: readonly string[]): SchemaObject =>
  envelope({ type: "integer", const: status }, { type: "string", enum: [...errorMessages] }, { type: "null" });

/** The exact 400 messages an operation can answer, in the order the checks run. */
const badRequestMessages = (spec: OperationSpec): string[] =>
  spec.params.flatMap((param) => {
    const reportsMissing = param.required || param.name === spec.missingWhenNoneGiven;
    const invalidMessage = invalid(param.name).message;
    return reportsMissing ? [missing(param.name).message, invalidMessage] : [invalidMessage];
  });

const AUTHENTICATED_HEADERS = [
  "X-Request-Id",
  "X-Credits-Cost",
  "X-Credits-Charged",
  "X-Credits-Remaining",
  "RateLimit-Policy",
  "RateLimit",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
] as const;

const headerRefs = (names: readonly string[]): Record<string, ReferenceObject> =>
  Object.fromEntries(names.map((name) => [name, headerRef(name)]));

/** "Missing required parameter: url" → "missing_required_parameter_url". */
const exampleKey = (message: string): string =>
  message.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");

const errorExamples = (status: number, errorMessages: readonly string[]): Record<string, ExampleObject> =>
  Object.fromEntries(
    errorMessages.map((message) => [
      exampleKey(message),
      { summary: message, value: { code: status, message, data: null, requestId: EXAMPLE_REQUEST_ID } },
    ]),
  );

const errorResponse = (
  description: string,
  schemaId: string,
  status: number,
  errorMessages: readonly string[],
  headers: readonly string[],
): ResponseObject => ({
  description,
  headers: headerRefs(headers),
  content: {
    "application/json": { schema: schemaRef(schemaId), examples: errorExamples(status, errorMessages) },
  },
});

const sharedErrorMessages = {
  401: [messages.keyMissing, messages.keyInvalid],
  402: [messages.quota],
  429: [messages.qps],
  500: [messages.internal],
} as const;

const badRequestId = (name: OperationName) => `ErrorEnvelope400_${name}`;
const notFoundId = (name: OperationName) => `ErrorEnvelope404_${name}`;

const responsesFor = (name: OperationName, spec: OperationSpec, dataId: string): Record<string, ResponseObject> => {
  const costCredits = operations[name].costCredits;
  return {
    "200": {
      description: `Success: code 0 and the record. Charges ${pluralCredits(costCredits)}.`,
      headers: headerRefs(AUTHENTICATED_HEADERS),
      content: {
        "application/json": {
          schema: schemaRef(`${dataId}Envelope`),
          examples: {
            success: {
              summary: spec.exampleSummary,
              value: { code: 0, message: "success", data: spec.exampleData, requestId: EXAMPLE_REQUEST_ID },
            },
          },
        },
      },
    },
    "400": errorResponse(
      "A parameter is missing (`Missing required parameter: <name>`) or malformed (`Invalid parameter: <name>`). Nothing is charged.",
      badRequestId(name),
      400,
      badRequestMessages(spec),
      AUTHENTICATED_HEADERS,
    ),
    "401": errorResponse(
      "`apiKey is null`: Authorization is missing or not `Bearer <token>`. `apiKey is invalid`: the key is unknown, malformed, expired or revoked.",
      "ErrorEnvelope401",
      401,
      sharedErrorMessages[401],
      ["X-Request-Id"],
    ),
    "402": errorResponse(
      `The key's remaining credits are below the cost (${costCredits}). Nothing is charged.`,
      "ErrorEnvelope402",
      402,
      sharedErrorMessages[402],
      AUTHENTICATED_HEADERS,
    ),
    "404": errorResponse(
      "The record does not exist. Nothing is charged.",
      notFoundId(name),
      404,
      [operations[name].notFoundMessage],
      AUTHENTICATED_HEADERS,
    ),
    "429": errorResponse(
      "The key's per-second limit is exceeded. Retry after Retry-After seconds. Nothing is charged.",
      "ErrorEnvelope429",
      429,
      sharedErrorMessages[429],
      [...AUTHENTICATED_HEADERS, "Retry-After"],
    ),
    "500": errorResponse(
      "Any other failure (store down, upstream failed); details stay in the server log under the requestId. Nothing is charged.",
      "ErrorEnvelope500",
      500,
      sharedErrorMessages[500],
      AUTHENTICATED_HEADERS,
    ),
  };
};

// ---------------------------------------------------------------------------------------------
// Operations

const operationDescription = (name: OperationName, spec: OperationSpec): string => {
  const cost =
    `Costs ${pluralCredits(operations[name].costCredits)} per request, charged only for a 200 answer ` +
    "(also in the x-credits-cost extension and the X-Credits-Cost header).";
  return spec.rule === undefined ? cost : `${spec.rule}\n\n${cost}`;
};

/** The site segment of the path ("eventsite", "pinsite", "jobsite") groups the operations. */
const tagOf = (path: string): string => path.split("/")[2] ?? "v1";

const operationObject = (name: OperationName, dataId: string): OperationObject => {
  const spec = operationSpecs[name];
  const operation = operations[name];
  return {
    operationId: name,
    summary: operation.summary,
    description: operationDescription(name, spec),
    tags: [tagOf(operation.path)],
    security: [{ bearerAuth: [] }],
    parameters: spec.params.map(parameterObject),
    responses: responsesFor(name, spec, dataId),
    "x-credits-cost": operation.costCredits,
  };
};

export const OPENAPI_PATH = "/v1/openapi.json";

const openApiOperation: OperationObject = {
  operationId: "openapi_document",
  summary: "This OpenAPI document",
  description: "The OpenAPI 3.1 description of /v1. No key needed, costs nothing.",
  tags: ["meta"],
  security: [],
  parameters: [],
  responses: {
    "200": {
      description: "The OpenAPI 3.1 document.",
      headers: headerRefs(["Cache-Control"]),
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["openapi", "info", "paths", "components"],
            properties: {
              openapi: { const: "3.1.0" },
              info: { type: "object" },
              paths: { type: "object" },
              components: { type: "object" },
            },
          },
        },
      },
    },
    "431": {
      description:
        "The request's header fields exceed the HTTP server's 16 KB limit; the server answers before any route runs, with no body.",
    },
  },
};

export const ACCOUNT_PATH = "/v1/account";

const exampleAccount: JsonObject = {
  key: {
    id: "key_Xb7Q2mN4pL9c",
    name: "nightly-sync",
    credits_remaining: 8421,
    credits_granted: 10000,
    qps_limit: 5,
    daily_credit_cap: 500,
    credits_spent_today: 128,
    credits_spent_this_month: 1579,
  },
};

/** Free and read-only: no credits, no usage record; checks 401 then 429 like a lookup. */
const accountOperation: OperationObject = {
  operationId: "account",
  summary: "The calling key's credits and spend",
  description:
    "The key's name, remaining and granted credits, per-second limit, daily credit cap and credits spent today and this month " +
    "(UTC; reservations of requests still running included), so a script can check before it spends. " +
    "Free: nothing is charged and no usage record is written. It counts against the key's per-second limit like any call.",
  tags: ["account"],
  security: [{ bearerAuth: [] }],
  parameters: [],
  responses: {
    "200": {
      description: "Success: code 0 and the key's figures. Charges nothing.",
      headers: headerRefs(AUTHENTICATED_HEADERS),
      content: {
        "application/json": {
          schema: schemaRef("AccountEnvelope"),
          examples: {
            success: {
              summary: "a key with a daily cap",
              value: { code: 0, message: "success", data: exampleAccount, requestId: EXAMPLE_REQUEST_ID },
            },
          },
        },
      },
    },
    "401": errorResponse(
      "`apiKey is null`: Authorization is missing or not `Bearer <token>`. `apiKey is invalid`: the key is unknown, malformed, expired or revoked.",
      "ErrorEnvelope401",
      401,
      sharedErrorMessages[401],
      ["X-Request-Id"],
    ),
    "429": errorResponse(
      "The key's per-second limit is exceeded. Retry after Retry-After seconds.",
      "ErrorEnvelope429",
      429,
      sharedErrorMessages[429],
      ["X-Request-Id", "RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"],
    ),
    "500": errorResponse(
      "Any other failure; details stay in the server log under the requestId.",
      "ErrorEnvelope500",
      500,
      sharedErrorMessages[500],
      ["X-Request-Id"],
    ),
  },
  "x-credits-cost": 0,
};

// ---------------------------------------------------------------------------------------------
// Components

const integerHeader = (description: string, required = false): HeaderObject => ({
  description,
  ...(required ? { required } : {}),
  schema: { type: "integer", minimum: 0 },
});

const headers: Record<string, HeaderObject> = {
  "X-Request-Id": {
    description: "The envelope's requestId. Quote it when reporting a problem.",
    required: true,
    schema: { type: "string", format: "uuid" },
  },
  "X-Credits-Cost": integerHeader("Credits the operation costs. Sent once the key is authenticated."),
  "X-Credits-Charged": integerHeader("Credits charged by this request: the cost on 200, 0 on any error."),
  "X-Credits-Remaining": integerHeader("The key's remaining credits after this request."),
  "RateLimit-Policy": {
    description:
      'The key\'s quota policy (IETF draft-ietf-httpapi-ratelimit-headers, Structured Field): `"per-key";q=<requests>;w=1` — q requests per w-second window.',
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'What is left of the policy (IETF draft, Structured Field): `"per-key";r=<remaining>;t=<seconds>` — r requests left, t seconds until the window resets.',
    schema: { type: "string" },
  },
  "RateLimit-Limit": integerHeader("Requests per second the key may make (draft-06 form, kept for existing clients)."),
  "RateLimit-Remaining": integerHeader("Requests left in the current one-second window."),
  "RateLimit-Reset": integerHeader("Seconds until the current window resets."),
  "Retry-After": integerHeader("Seconds to wait before retrying.", true),
  "Cache-Control": { description: "public, max-age=300", schema: { type: "string" } },
};

const securitySchemes: Record<string, SecuritySchemeObject> = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "Authorization: Bearer <API_KEY>. The key is issued in the console and shown once.",
  },
};

const errorSchemas = (): Record<string, SchemaObject> => {
  const schemas: Record<string, SchemaObject> = {
    ErrorEnvelope401: errorEnvelope(401, sharedErrorMessages[401]),
    ErrorEnvelope402: errorEnvelope(402, sharedErrorMessages[402]),
    ErrorEnvelope429: errorEnvelope(429, sharedErrorMessages[429]),
    ErrorEnvelope500: errorEnvelope(500, sharedErrorMessages[500]),
  };
  for (const name of operationNames) {
    schemas[badRequestId(name)] = errorEnvelope(400, badRequestMessages(operationSpecs[name]));
    schemas[notFoundId(name)] = errorEnvelope(404, [operations[name].notFoundMessage]);
  }
  return schemas;
};

const INFO_DESCRIPTION = [
  "Paid lookups of public records on an event site, a pin-board site and a professional-network site.",
  "Every /v1 answer is the envelope {code, message, data, requestId}: code 0 and message \"success\" on 200; on failure code equals the HTTP status and data is null.",
  "Checks run in this order and the first failing one answers: 401, 429, 400, 402, 404, 500.",
  "A key is charged only for a 200 answer; every error costs nothing.",
  `An unknown path under /v1 answers 404 "${messages.notFoundPath}", a wrong method 405 "${messages.methodNotAllowed}", both in the ErrorEnvelope shape.`,
].join("\n\n");

const TAGS = [
  { name: "eventsite", description: "Event details" },
  { name: "pinsite", description: "Follower lists" },
  { name: "jobsite", description: "Publication lists" },
  { name: "account", description: "The calling key's credits" },
  { name: "meta", description: "This document" },
];

// ---------------------------------------------------------------------------------------------
// The document

export const buildOpenApiDocument = (): OpenApiDocument => {
  const schemas: Record<string, SchemaObject> = {};
  const paths: Record<string, { get: OperationObject }> = {};
  for (const name of operationNames) {
    const spec = operationSpecs[name];
    const dataId = metaId(spec.dataSchema);
    mergeDefs(schemas, convert(spec.dataSchema).defs);
    schemas[`${dataId}Envelope`] = successEnvelope(dataId);
    paths[operations[name].path] = { get: operationObject(name, dataId) };
  }
  mergeDefs(schemas, convert(accountDataSchema).defs);
  schemas.AccountEnvelope = successEnvelope(metaId(accountDataSchema));
  paths[ACCOUNT_PATH] = { get: accountOperation };
  paths[OPENAPI_PATH] = { get: openApiOperation };
  Object.assign(schemas, errorSchemas());
  return {
    openapi: "3.1.0",
    info: {
      title: "Social Lookup API",
      version: "1.0.0",
      description: INFO_DESCRIPTION,
      // Self-hosted: the deployment's operators answer for it; the software carries no public licence.
      contact: { name: "The operators of this deployment", url: "/api-docs" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "this deployment" }],
    tags: TAGS,
    paths,
    components: { schemas, headers, securitySchemes },
  };
};

// ---------------------------------------------------------------------------------------------
// For the console's API page (try-it forms, curl / fetch / python snippets)

export type OperationParameterDoc = {
  name: ParamName;
  required: boolean;
  description: string;
  /** A query-string value that finds a demo record. */
  example: string;
};

export type OperationDoc = {
  name: OperationName;
  path: string;
  costCredits: number;
  summary: string;
  /** Rules spanning parameters (e.g. followers: userid, else node_id + cursor); "" when none. */
  description: string;
  parameters: OperationParameterDoc[];
};

export const operationDocs = (): OperationDoc[] =>
  operationNames.map((name) => {
    const spec = operationSpecs[name];
    const operation = operations[name];
    return {
      name,
      path: operation.path,
      costCredits: operation.costCredits,
      summary: operation.summary,
      description: spec.rule ?? "",
      parameters: spec.params.map((param) => ({
        name: param.name,
        required: param.required,
        description: paramDescription(param),
        example: param.example,
      })),
    };
  });
