import { messages } from "@/lib/api/errors";
import { headerRef, schemaRef } from "./json-schema";
import type { BodilessResponseObject, FileResponseObject, ExampleObject, HeaderObject, MediaTypeObject, ReferenceObject, ResponseObject, SchemaObject, SecuritySchemeObject } from "./types";

/**
 * The parts every /v1 answer shares: the envelope, the error responses and their examples, the
 * headers and the security scheme (docs/api.md "Envelope" and "Order of checks",
 * docs/decisions.md "Envelope and headers").
 */
export const EXAMPLE_REQUEST_ID = "5b0f3c1e-7a2d-4e8b-9c61-0d2f4a7e9b13";

export const pluralCredits = (costCredits: number) => `${costCredits} credit${costCredits === 1 ? "" : "s"}`;

const requestIdSchema: SchemaObject = { type: "string", format: "uuid", description: "fresh UUID v4, also in X-Request-Id" };

const envelope = (code: SchemaObject, message: SchemaObject, data: SchemaObject | ReferenceObject): SchemaObject => ({
  type: "object",
  properties: { code, message, data, requestId: requestIdSchema },
  required: ["code", "message", "data", "requestId"],
  additionalProperties: false,
});

export const successEnvelope = (dataId: string): SchemaObject =>
  envelope({ type: "integer", const: 0 }, { type: "string", const: "success" }, schemaRef(dataId));

export const errorEnvelope = (status: number, errorMessages: readonly string[]): SchemaObject =>
  envelope({ type: "integer", const: status }, { type: "string", enum: [...errorMessages] }, { type: "null" });

export { AUTHENTICATED_HEADERS, FRESHNESS_HEADERS } from "./headers";

export const headerRefs = (names: readonly string[]): Record<string, ReferenceObject> =>
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

export const errorResponse = (
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

export const sharedErrorMessages = {
  401: [messages.keyMissing, messages.keyInvalid],
  402: [messages.quota],
  403: [messages.addressNotAllowed, messages.operationNotAllowed],
  429: [messages.qps],
  500: [messages.internal],
} as const;

const integerHeader = (description: string, required = false): HeaderObject => ({
  description,
  ...(required ? { required } : {}),
  schema: { type: "integer", minimum: 0 },
});

export const headers: Record<string, HeaderObject> = {
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
  "X-Cache": {
    description: "With the upstream data source: `hit` when the record came from the cache (charged as the operation says), `miss` when the provider was asked.",
    schema: { type: "string", enum: ["hit", "miss"] },
  },
  "X-Data-As-Of": {
    description: "When the record was read from its source (ISO 8601, UTC).",
    schema: { type: "string", format: "date-time" },
  },
  Age: integerHeader("Seconds since the cached record was read from its source (RFC 9111 §5.1); only on a cache hit."),
};

export const securitySchemes: Record<string, SecuritySchemeObject> = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "Authorization: Bearer <API_KEY>. The key is issued in the console and shown once.",
  },
};

/** 401: the same answer for every authenticated path; only X-Request-Id goes out. */
export const unauthorizedResponse = (): ResponseObject =>
  errorResponse(
    "`apiKey is null`: Authorization is missing or not `Bearer <token>`. `apiKey is invalid`: the key is unknown, malformed, expired or revoked.",
    "ErrorEnvelope401",
    401,
    sharedErrorMessages[401],
    ["X-Request-Id"],
  );

/** The JSON body of a response, or undefined for one without a body. */
export const jsonMedia = (response: ResponseObject | BodilessResponseObject | FileResponseObject | undefined): MediaTypeObject | undefined =>
  response && "content" in response ? response.content["application/json"] : undefined;
