/** The subset of OpenAPI 3.1 the /v1 document uses, and the JSON it is made of. */
import type { JsonObject, JsonValue, SchemaObject } from "@/lib/records/json";

export type { JsonObject, JsonValue, SchemaObject } from "@/lib/records/json";
export type ReferenceObject = { $ref: string };

export type ParameterObject = {
  name: string;
  in: "query" | "path" | "header";
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

/** A file answered as it is read (batch results): other media types than JSON. */
export type FileResponseObject = {
  description: string;
  headers?: Record<string, ReferenceObject>;
  content: Record<string, MediaTypeObject>;
};

export type RequestBodyObject = { required: boolean; description: string; content: { "application/json": MediaTypeObject } };

/** A response the HTTP server itself sends, before any route runs: no body. */
export type BodilessResponseObject = { description: string; headers?: Record<string, ReferenceObject> };

export type SecurityRequirement = Record<string, string[]>;

export type OperationObject = {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: SecurityRequirement[];
  parameters: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | BodilessResponseObject | FileResponseObject>;
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
  paths: Record<string, { get?: OperationObject; post?: OperationObject }>;
  components: {
    schemas: Record<string, SchemaObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
};
