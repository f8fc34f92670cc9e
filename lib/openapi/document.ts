import { messages } from "@/lib/api/errors";
import { invalid, missing } from "@/lib/records/input-errors";
import { registry as defaultRegistry, type Operation, type OperationParam, type Registry } from "@/lib/operations";
import { accountDataSchema } from "@/lib/usage/account-schema";
import { convert, mergeDefs, metaId, schemaRef } from "./json-schema";
import { ACCOUNT_PATH, accountOperation, OPENAPI_PATH, openApiOperation } from "./meta-operations";
import { batchPaths, batchSchemas } from "./batch-operations";
import {
  AUTHENTICATED_HEADERS,
  FRESHNESS_HEADERS,
  errorEnvelope,
  errorResponse,
  EXAMPLE_REQUEST_ID,
  headerRefs,
  headers,
  pluralCredits,
  securitySchemes,
  sharedErrorMessages,
  successEnvelope,
  unauthorizedResponse,
} from "./responses";
import type { OpenApiDocument, OperationObject, ParameterObject, ResponseObject, SchemaObject } from "./types";

/**
 * The OpenAPI 3.1 document served at /v1/openapi.json (docs/decisions.md "Versioning"), built from the
 * operations registry: paths, parameters, records, costs and messages come from the operation
 * modules and the zod schemas the API validates with, so the document cannot drift from the code.
 */
export type { OpenApiDocument } from "./types";
export { ACCOUNT_PATH, OPENAPI_PATH } from "./meta-operations";

// ---------------------------------------------------------------------------------------------
// Parameters

export const paramDescription = (param: OperationParam): string => {
  const base = param.schema.description ?? param.name;
  return param.note === undefined ? base : `${base}. ${param.note}`;
};

export const paramSchema = (param: OperationParam): SchemaObject => {
  if (param.openApiSchema !== undefined) return param.openApiSchema;
  const { root } = convert(param.schema);
  const { description: _movedToParameter, ...schema } = root;
  return schema;
};

const parameterObject = (param: OperationParam): ParameterObject => {
  const schema = paramSchema(param);
  return {
    name: param.name,
    in: "query",
    required: param.required,
    description: paramDescription(param),
    schema,
    example: schema.type === "integer" ? Number(param.example) : param.example,
  };
};

/** The exact 400 messages an operation can answer, in the order the checks run. */
const badRequestMessages = (operation: Operation): string[] =>
  operation.params.flatMap((param) => {
    const reportsMissing = param.required || param.name === operation.missingWhenNoneGiven;
    const invalidMessage = invalid(param.name).message;
    return reportsMissing ? [missing(param.name).message, invalidMessage] : [invalidMessage];
  });

// ---------------------------------------------------------------------------------------------
// Responses and operations

const badRequestId = (operation: Operation) => `ErrorEnvelope400_${operation.id}`;
const notFoundId = (operation: Operation) => `ErrorEnvelope404_${operation.id}`;

const responsesFor = (operation: Operation, dataId: string): Record<string, ResponseObject> => {
  const { costCredits } = operation;
  return {
    "200": {
      description: `Success: code 0 and the record. Charges ${pluralCredits(costCredits)}.`,
      headers: headerRefs([...AUTHENTICATED_HEADERS, ...FRESHNESS_HEADERS]),
      content: {
        "application/json": {
          schema: schemaRef(`${dataId}Envelope`),
          examples: {
            success: {
              summary: operation.example.summary,
              value: { code: 0, message: "success", data: operation.example.data, requestId: EXAMPLE_REQUEST_ID },
            },
          },
        },
      },
    },
    "400": errorResponse(
      "A parameter is missing (`Missing required parameter: <name>`) or malformed (`Invalid parameter: <name>`). Nothing is charged.",
      badRequestId(operation),
      400,
      badRequestMessages(operation),
      AUTHENTICATED_HEADERS,
    ),
    "401": unauthorizedResponse(),
    "403": errorResponse(
      "The key may not call this operation, or not from this client address (the key's scopes and allowlist). Nothing is charged.",
      "ErrorEnvelope403",
      403,
      sharedErrorMessages[403],
      ["X-Request-Id", "X-Credits-Cost", "X-Credits-Charged", "X-Credits-Remaining"],
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
      notFoundId(operation),
      404,
      [operation.notFoundMessage],
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

const operationDescription = (operation: Operation): string => {
  const cost =
    `Costs ${pluralCredits(operation.costCredits)} per request, charged only for a 200 answer ` +
    "(also in the x-credits-cost extension and the X-Credits-Cost header).";
  return operation.rule === undefined ? cost : `${operation.rule}\n\n${cost}`;
};

/** The site segment of the path (/v1/<site>/<operation>) groups the operations. */
const tagOf = (path: string): string => path.split("/")[2] ?? "v1";

/** A lookup's request Cache-Control: how old a cached record may be (lib/api/freshness.ts). */
const cacheControlParameter: ParameterObject = {
  name: "Cache-Control",
  in: "header",
  required: false,
  description:
    "With the upstream data source: `max-age=<seconds>` takes a cached record only if it is at most that old, `no-cache` asks the provider " +
    "again (charged as a miss). Without it, or with another value, the operator's cache lifetime applies.",
  schema: { type: "string" },
  example: "max-age=3600",
};

const operationObject = (operation: Operation, dataId: string): OperationObject => ({
  operationId: operation.id,
  summary: operation.summary,
  description: operationDescription(operation),
  tags: [tagOf(operation.path)],
  security: [{ bearerAuth: [] }],
  parameters: [...operation.params.map(parameterObject), cacheControlParameter],
  responses: responsesFor(operation, dataId),
  "x-credits-cost": operation.costCredits,
});

// ---------------------------------------------------------------------------------------------
// The document

const errorSchemas = (operations: Registry): Record<string, SchemaObject> => {
  const schemas: Record<string, SchemaObject> = {
    ErrorEnvelope401: errorEnvelope(401, sharedErrorMessages[401]),
    ErrorEnvelope402: errorEnvelope(402, sharedErrorMessages[402]),
    ErrorEnvelope403: errorEnvelope(403, sharedErrorMessages[403]),
    ErrorEnvelope429: errorEnvelope(429, sharedErrorMessages[429]),
    ErrorEnvelope500: errorEnvelope(500, sharedErrorMessages[500]),
  };
  for (const operation of operations) {
    schemas[badRequestId(operation)] = errorEnvelope(400, badRequestMessages(operation));
    schemas[notFoundId(operation)] = errorEnvelope(404, [operation.notFoundMessage]);
  }
  return schemas;
};

const INFO_DESCRIPTION = [
  "Paid lookups of public records on an event site, a pin-board site and a professional-network site.",
  "Every /v1 answer is the envelope {code, message, data, requestId}: code 0 and message \"success\" on 200; on failure code equals the HTTP status and data is null.",
  "Checks run in this order and the first failing one answers: 401, 403, 429, 400, 402, 404, 500.",
  "A key is charged only for a 200 answer; every error costs nothing.",
  `An unknown path under /v1 answers 404 "${messages.notFoundPath}", a wrong method 405 "${messages.methodNotAllowed}", both as that error envelope.`,
].join("\n\n");

/** One tag per site segment, in registry order, then the two that are not lookups. */
const tagsOf = (operations: Registry): { name: string; description: string }[] => {
  const sites = new Map<string, string>();
  for (const operation of operations) {
    const tag = tagOf(operation.path);
    if (!sites.has(tag)) sites.set(tag, operation.tagDescription);
  }
  return [
    ...[...sites].map(([name, description]) => ({ name, description })),
    { name: "account", description: "The calling key's credits" },
    { name: "batches", description: "Many lookups in one job, paid and paced by the key that starts it" },
    { name: "meta", description: "This document" },
  ];
};

export const buildOpenApiDocument = (operations: Registry = defaultRegistry): OpenApiDocument => {
  const schemas: Record<string, SchemaObject> = {};
  const paths: Record<string, { get?: OperationObject; post?: OperationObject }> = {};
  for (const operation of operations) {
    const dataId = metaId(operation.record);
    mergeDefs(schemas, convert(operation.record).defs);
    schemas[`${dataId}Envelope`] = successEnvelope(dataId);
    paths[operation.path] = { get: operationObject(operation, dataId) };
  }
  mergeDefs(schemas, convert(accountDataSchema).defs);
  schemas.AccountEnvelope = successEnvelope(metaId(accountDataSchema));
  paths[ACCOUNT_PATH] = { get: accountOperation };
  paths[OPENAPI_PATH] = { get: openApiOperation };
  Object.assign(paths, batchPaths());
  Object.assign(schemas, batchSchemas);
  Object.assign(schemas, errorSchemas(operations));
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
    tags: tagsOf(operations),
    paths,
    components: { schemas, headers, securitySchemes },
  };
};
